"""Aligning a run's judge to people from the app (the People panel): ``evalcore judge align`` with the app's roles.

Judges may be called (and paid), and a file is written in the suite's folder, so it is refused to whoever may not
change the store, and to a run whose suite folder lies outside the app's suite folders (its scorer modules are
code the server would run).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from evalcore.core.errors import ConfigError
from evalcore.execution.align import AlignOptions, AlignOutcome, align_judge
from evalcore.explorer.access import Access
from evalcore.explorer.suite_roots import confine


def align_run(
    run_id: str, db_path: str | Path, access: Access, roots: Sequence[str | Path], options: AlignOptions
) -> AlignOutcome:
    """Align the judge of the stored run ``run_id`` to its ratings (:func:`~evalcore.execution.align.align_judge`).

    Raises:
        AccessDenied: the deployment's roles forbid ``access.visitor`` to change the store.
        ConfigError: the run names no suite folder here, has no ratings, or too few for the folds.
        EvalcoreError: the run's suite folder is outside ``roots``.
    """
    from evalcore.storage.ratings import load_ratings
    from evalcore.storage.store import Store
    from evalcore.suite.loader import load_suite

    access.require("align")
    with Store(db_path) as store:
        run_id = store.resolve_run_id(run_id)
        run, ratings = store.load_run(run_id), load_ratings(store, run_id)
    suite_path = run.info.settings.get("suite_path")
    if not suite_path or not Path(suite_path).is_dir():
        named = f"names {suite_path!r}, which is not a folder here" if suite_path else "names no suite folder"
        raise ConfigError(f"run {run_id} {named}: align it with evalcore judge align RUN --suite PATH")
    confine(suite_path, roots)
    try:
        return align_judge(run, ratings, load_suite(suite_path), options)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
