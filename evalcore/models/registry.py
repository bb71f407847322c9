"""Who answers a model id: a registered provider, the built-in fake models, or litellm for everything else.

The runner only sees :class:`~evalcore.models.types.Provider`. Tests replace a provider by registering another
under the same prefix; only :mod:`evalcore.models.llm` imports litellm, and only when a call is made.
"""

from __future__ import annotations

from evalcore.models.fakes import FakeProvider
from evalcore.models.llm import LiteLLMProvider
from evalcore.models.types import Provider

_PROVIDERS: dict[str, Provider] = {}


def register_provider(prefix: str, provider: Provider) -> None:
    """Make ``provider`` answer every model id that starts with ``prefix`` (e.g. ``"fake/"``)."""
    _PROVIDERS[prefix] = provider


def get_provider(model: str) -> Provider:
    """The provider for a model id: a registered prefix, else litellm."""
    for prefix, provider in _PROVIDERS.items():
        if model.startswith(prefix):
            return provider
    if model.startswith("fake/"):
        return FakeProvider()
    return LiteLLMProvider()
