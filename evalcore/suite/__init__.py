"""An eval suite on disk: its configuration, datasets of cases, field rules, and the lineup of contenders.

- :mod:`~evalcore.suite.config`: the pydantic models of ``evalcore.yaml`` (unknown keys are errors).
- :mod:`~evalcore.suite.cases`: reading a dataset's cases (folders, ``cases.jsonl``, YAML files).
- :mod:`~evalcore.suite.fieldrules`: how each field of a structured answer is compared.
- :mod:`~evalcore.suite.prompts`: the prompt templates in ``prompts/`` (Jinja2, sandboxed, strict).
- :mod:`~evalcore.suite.lineup`: expanding lineup entries (settings lists multiply) into contenders.
- :mod:`~evalcore.suite.code`: importing the suite's own Python modules (custom adapters, scorers, tools).
- :mod:`~evalcore.suite.loader`: :func:`load_suite`, which checks all of it and returns a :class:`Suite`.
- :mod:`~evalcore.suite.additions`: a case added to a dataset's files in the dataset's own form.
- :mod:`~evalcore.suite.duplicates`: the near-duplicate rule for cases (word shingles, Jaccard similarity).

May import :mod:`evalcore.models`, :mod:`evalcore.core` and :mod:`evalcore._util`.
"""

from evalcore.suite.lineup import Overrides, expand_lineup
from evalcore.suite.loader import Suite, load_suite
from evalcore.suite.prompts import Prompt, load_prompts

__all__ = ["Overrides", "Prompt", "Suite", "expand_lineup", "load_prompts", "load_suite"]
