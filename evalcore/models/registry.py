"""Who answers a model id: a registered provider, the built-in fake models, application endpoints (``http/…``,
called by their adapter), or litellm for everything else.

The runner only sees :class:`~evalcore.models.types.Provider`. Tests replace a provider by registering another
under the same prefix; only :mod:`evalcore.models.llm` imports litellm, and only when a call is made.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from evalcore.core.records import Contender
from evalcore.models.batches import BatchClient, FakeBatchClient
from evalcore.models.cache import cached
from evalcore.models.fake_chat import MODELS as CHAT_FAKES
from evalcore.models.fake_chat import FakeChatProvider
from evalcore.models.fake_writer import MODEL as WRITER_MODEL
from evalcore.models.fake_writer import WriterProvider
from evalcore.models.fakes import FakeProvider
from evalcore.models.http import HTTP_PREFIX, HttpTargetProvider
from evalcore.models.llm import LiteLLMProvider
from evalcore.models.metering import metered
from evalcore.models.router import RouterProvider
from evalcore.models.types import Provider

_PROVIDERS: dict[str, Provider] = {}


def register_provider(prefix: str, provider: Provider) -> None:
    """Make ``provider`` answer every model id that starts with ``prefix`` (e.g. ``"fake/"``)."""
    _PROVIDERS[prefix] = provider


def get_provider(model: str) -> Provider:
    """The provider for a model id: a registered prefix, else litellm. Inside a capped run its calls go through
    the run's budget (:mod:`evalcore.models.metering`), whoever makes them; inside a run with the reply cache on,
    they look in it first (:mod:`evalcore.models.cache`), under the meter, which settles a hit at no cost."""
    return metered(cached(_own_provider(model)))


def _own_provider(model: str) -> Provider:
    for prefix, provider in _PROVIDERS.items():
        if model.startswith(prefix):
            return provider
    if model == WRITER_MODEL:  # the writer of proposed cases lives apart from the fakes that answer cases
        return WriterProvider()
    if model in CHAT_FAKES:  # a simulated user and the support bots of a conversation suite
        return FakeChatProvider()
    if model.startswith("fake/"):
        return FakeProvider()
    if model.startswith(HTTP_PREFIX):
        return HttpTargetProvider()
    return LiteLLMProvider()


def provider_for(contender: Contender) -> Provider:
    """The provider that answers a contender: a Router of its ``router:`` setup, else :func:`get_provider`
    (metered inside a capped run, as :func:`get_provider`'s)."""
    if contender.router is not None:
        return metered(cached(RouterProvider(contender.router)))
    return get_provider(contender.model)


def run_providers(contenders: Iterable[Contender], replay: Provider | None = None) -> dict[str, Provider]:
    """The provider of each contender for one run, by contender id.

    Args:
        contenders: the run's contenders.
        replay: answers every call instead (``evalcore run --replay``); None to ask the models.

    The contenders of one router setup (a lineup entry's, whatever its settings) share one provider, so one
    ``litellm.Router`` spreads and cools down their calls together.
    """
    found: dict[str, Provider] = {}
    routers: dict[str, Provider] = {}
    for contender in contenders:
        if replay is not None:
            found[contender.id] = replay
        elif contender.router is not None:
            key = json.dumps(contender.router, sort_keys=True, default=str)
            found[contender.id] = routers.setdefault(key, provider_for(contender))
        else:
            found[contender.id] = provider_for(contender)
    return found


def batch_client(model: str) -> BatchClient:
    """The batch API that answers ``model`` (``evalcore run --batch``): the fake one for ``fake/`` ids, else
    litellm's (:mod:`evalcore.models.llm_batch`, which imports litellm only when a batch is sent)."""
    if model.startswith("fake/"):
        return FakeBatchClient()
    from evalcore.models.llm_batch import LiteLLMBatchClient

    return LiteLLMBatchClient()
