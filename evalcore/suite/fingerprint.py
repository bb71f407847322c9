"""A suite's definition fingerprint: what decides the scores, hashed, so two runs that share it scored alike.

The fingerprint covers the cases a run asks (dataset, id, input, expected answer and per-case
``minimum_scores``; a simulated user's model and seed are in its input), the adapter and every scorer with their
options, the content of a file a scorer option names in the suite's folder (an ``llm_judge``'s ``examples:
judges/NAME.yaml``, which ``evalcore judge align`` writes), the field schemas, the instructions and prompt texts
sent to the models (a simulated user's prompt too), and the suite's ``version:`` (bumped by hand when code changes
what is scored). It leaves out what does not change a score: the lineup, run settings, weights, the ``gate:``
block and descriptions. ``evalcore gate`` takes only a run with the same fingerprint as an automatic baseline.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from evalcore._util import jsonfast
from evalcore.core.conversation import SIMULATED, SIMULATOR_PROMPT, kind_of
from evalcore.suite.cases import MINIMUM_SCORES

if TYPE_CHECKING:
    from evalcore.core.records import Case
    from evalcore.suite.loader import Suite

#: The key of a run's settings that holds its definition fingerprint.
SETTING = "definition_fingerprint"


def definition_fingerprint(suite: Suite, cases: Sequence[Case]) -> str:
    """The fingerprint of ``suite`` asked on ``cases`` (the run's selection): 16 hex digits."""
    config = suite.config
    adapter = config.adapter if isinstance(config.adapter, str) else config.adapter.model_dump(mode="json")
    definition: dict[str, Any] = {
        "version": config.version,
        "adapter": adapter,
        "scorers": [r.model_dump(mode="json") for r in config.scorer_entries()],
        "fields": {k: v.model_dump(mode="json") for k, v in (config.fields or {}).items()},
        "instructions": config.instructions,
        "datasets": {
            name: d.model_dump(mode="json", include={"instructions", "fields"}) for name, d in config.datasets.items()
        },
        "prompts": {name: p.text for name, p in suite.prompts.items()},
        "cases": sorted([c.dataset, c.id, c.input, c.expected, c.metadata.get(MINIMUM_SCORES)] for c in cases),
    }
    read = _option_files(suite)
    if read:  # only then: the fingerprints of suites that name no such file stay what they were
        definition["option_files"] = read
    if any(kind_of(c) == SIMULATED for c in cases):  # the prompt a simulated user's model plays from (its model and
        definition["simulator"] = SIMULATOR_PROMPT  # seed are in its case); other suites keep their fingerprint
    text = jsonfast.dumps(definition, sort_keys=True, allow_nan=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


#: Scorer options that name a file in the suite's folder, whose content decides the scores.
FILE_OPTIONS = ("examples",)


def _option_files(suite: Suite) -> dict[str, str]:
    """The SHA-256 of each file a scorer option names (:data:`FILE_OPTIONS`), by its path (a missing file as
    ``missing``)."""
    found = {}
    for entry in suite.config.scorer_entries():
        options = getattr(entry, "options", None) or {}
        for key in FILE_OPTIONS:
            name = options.get(key)
            if isinstance(name, str):
                path = suite.path / name
                found[name] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "missing"
    return found
