"""Who answers a contender's calls: the request and reply types, the provider registry, fakes and litellm.

- :mod:`~evalcore.models.types`: :class:`Request`, :class:`Reply` and the :class:`Provider` protocol.
- :mod:`~evalcore.models.registry`: :func:`get_provider` and :func:`register_provider`.
- :mod:`~evalcore.models.breaker`: a circuit breaker per endpoint (stop calling a server that cannot be reached).
- :mod:`~evalcore.models.fakes`: the built-in offline fake models (``fake/oracle`` …).
- :mod:`~evalcore.models.llm`: every other model id, through litellm (the one module that imports it, lazily).
- :mod:`~evalcore.models.names`: whether litellm can route a model id, from its model list (``evalcore verify``).
- :mod:`~evalcore.models.router`: a contender answered by a ``litellm.Router`` over several deployments.
- :mod:`~evalcore.models.replay`: answers from a stored run's replies instead of a model.
- :mod:`~evalcore.models.cache`: what names a request in the reply cache, and the provider that looks there first.
- :mod:`~evalcore.models.limits`: rate limits (rpm, tpm, calls in flight) per model or endpoint.
- :mod:`~evalcore.models.http`: calls to HTTP endpoints with the model calls' retries and fault kinds, and the
  ``http/<name>`` ids of application endpoints in a lineup.

May import :mod:`evalcore.core` and :mod:`evalcore._util`.
"""

from evalcore.models.registry import get_provider, register_provider
from evalcore.models.types import Provider, Reply, Request

__all__ = ["Provider", "Reply", "Request", "get_provider", "register_provider"]
