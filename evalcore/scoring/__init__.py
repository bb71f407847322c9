"""Turning a reply into numbers: adapters (messages out, parsed answer back), scorers, and their registry.

- :mod:`~evalcore.scoring.adapters`: the adapter protocol, ``extract`` (JSON against the field schema) and
  ``chat`` (free text).
- :mod:`~evalcore.scoring.client`: adapters that make the call themselves (``call()``) and the
  :class:`Client` they make it with.
- :mod:`~evalcore.scoring.http_adapter`: ``http``, an application endpoint (with :mod:`~evalcore.scoring.paths`,
  paths into its JSON reply, and :mod:`~evalcore.scoring.reported_trace`, the actions its agent reports).
- :mod:`~evalcore.scoring.tools_adapter`: ``tools``, function calling; :mod:`~evalcore.scoring.tool_calls`
  scores the calls.
- :mod:`~evalcore.scoring.scorers`: the built-in scorers (``fields``, ``exact``, ``contains``, ``regex``,
  ``tool_call`` …); :mod:`~evalcore.scoring.trajectory` scores an agent's path (its trace's tool calls);
  :mod:`~evalcore.scoring.numbers`: ``numbers``, numbers an adapter reads beside the reply.
- :mod:`~evalcore.scoring.plugins`: :func:`build_adapter` / :func:`build_scorer` resolve a suite's names,
  built-in or ``my_module:MyScorer`` in the suite folder; :func:`find_plugin`, a plugin an installed package
  registers under an entry-point group.

May import :mod:`evalcore.suite`, :mod:`evalcore.models`, :mod:`evalcore.core` and :mod:`evalcore._util`.
"""

from evalcore.scoring.adapters import Adapter, Context, Parsed
from evalcore.scoring.client import CallingAdapter, Client
from evalcore.scoring.plugins import build_adapter, build_scorer
from evalcore.scoring.scorers import Scored, Scorer

__all__ = [
    "Adapter",
    "CallingAdapter",
    "Client",
    "Context",
    "Parsed",
    "Scored",
    "Scorer",
    "build_adapter",
    "build_scorer",
]
