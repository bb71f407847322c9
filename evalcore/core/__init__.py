"""The types every other part of evalcore shares, and its exceptions.

- :mod:`~evalcore.core.records`: plain dataclasses for cases, contenders, metrics, results and runs.
- :mod:`~evalcore.core.errors`: the exception hierarchy (:class:`EvalcoreError` and its subclasses).
- :mod:`~evalcore.core.metric_set`: a run's metric set (:class:`~evalcore.core.metric_set.MetricSet`): its declared
  and aggregate metrics, the names a weight may use, their order and directions, derived once.
- :mod:`~evalcore.core.schema`: the field schema of structured answers (:class:`FieldSpec`) and per-field credit.
- :mod:`~evalcore.core.clock`: :func:`~evalcore.core.clock.utc_now`, the timestamp of runs and results.

May import only :mod:`evalcore._util`.
"""

from evalcore.core.errors import CallFailed, ConfigError, EvalcoreError, RunFileError, StoreError, WeightsError
from evalcore.core.records import Case, Contender, Metric, Result, Run, RunInfo, Usage
from evalcore.core.schema import FieldSpec
from evalcore.core.version import __version__

__all__ = [
    "CallFailed",
    "Case",
    "ConfigError",
    "Contender",
    "EvalcoreError",
    "FieldSpec",
    "Metric",
    "Result",
    "Run",
    "RunFileError",
    "RunInfo",
    "StoreError",
    "Usage",
    "WeightsError",
    "__version__",
]
