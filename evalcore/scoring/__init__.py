"""Turning a reply into numbers: adapters (messages out, parsed answer back), scorers, and their registry.

- :mod:`~evalcore.scoring.adapters`: ``extract`` (JSON against the field schema) and ``chat`` (free text).
- :mod:`~evalcore.scoring.scorers`: the built-in scorers (``fields``, ``exact``, ``contains``, ``regex`` …).
- :mod:`~evalcore.scoring.plugins`: :func:`build_adapter` / :func:`build_scorer` resolve a suite's names,
  built-in or ``my_module:MyScorer`` in the suite folder.

May import :mod:`evalcore.suite`, :mod:`evalcore.models`, :mod:`evalcore.core` and :mod:`evalcore._util`.
"""

from evalcore.scoring.adapters import Adapter, Context, Parsed
from evalcore.scoring.plugins import build_adapter, build_scorer
from evalcore.scoring.scorers import Scored, Scorer

__all__ = ["Adapter", "Context", "Parsed", "Scored", "Scorer", "build_adapter", "build_scorer"]
