"""A contender answered by a ``litellm.Router``: several deployments of one model, spread and failed over.

A lineup entry with ``router:`` (litellm's own Router arguments: a ``model_list`` of deployments, each with
its ``litellm_params``, and ``fallbacks``, ``num_retries``, ``routing_strategy`` …) names one of the
Router's model groups as its ``model``. Its calls take the path of every litellm model
(:class:`~evalcore.models.llm.LiteLLMProvider`: the same fault kinds, usage and retry loop), except:

- **Each attempt** is ``router.acompletion(model=<group>, …)``: the Router picks a deployment by its
  routing strategy, cools down one that keeps failing, and tries the fallback groups.
- **Retries happen in one place.** By default evalcore's: ``run.max_attempts`` attempts with its backoff,
  the Router's ``num_retries`` 0, so a retry goes to whichever deployment the Router picks next. When the
  entry sets ``router.num_retries``, the Router retries (at once, across deployments) and evalcore makes
  one attempt per call; both at once would multiply the calls to a failing group (4 x 3 = 12).
  ``attempts`` then counts evalcore's calls to the Router, not the Router's own retries.
- **No circuit breaker**: a deployment that cannot be reached is the Router's to cool down while the others
  answer; when every deployment is down, calls fail after their attempts (kind ``transport``).
- **Cost** comes from the entry's ``prices`` (or the suite's for the group's name, or the deployments'
  ``input_cost_per_token``/``output_cost_per_token`` when they all name the same); else from litellm's
  price map only when it prices every deployment's model, since litellm counts a model it does not know
  as free once a Router has seen it.

The Router is made at the first call, in the run's event loop; :func:`evalcore.models.registry.run_providers`
makes one provider per router setup and run, shared by the contenders of its lineup entry. This module is
the Router's part of :mod:`evalcore.models.llm` and imports litellm only through it.
"""

from __future__ import annotations

import copy
import os
from typing import Any

from evalcore.core.records import Contender, Usage
from evalcore.models.breaker import Breaker
from evalcore.models.llm import PLACEHOLDER_KEY, LiteLLMProvider, litellm_module, model_prices, needs_placeholder_key
from evalcore.models.types import Request

#: How litellm's configuration names an environment variable in place of a value.
ENV_REFERENCE = "os.environ/"


class RouterProvider(LiteLLMProvider):
    """Answers the model groups of one router setup through one ``litellm.Router``.

    Args:
        arguments: the keyword arguments of ``litellm.Router`` (``model_list`` first of all).
    """

    def __init__(self, arguments: dict[str, Any]):
        self.arguments = arguments
        self._router: Any = None
        self._map_priced = False

    def deployments(self, model_name: str | None = None) -> list[dict[str, Any]]:
        """The ``litellm_params`` of every deployment (of one group, when named)."""
        return [
            dict(d["litellm_params"])
            for d in self.arguments["model_list"]
            if model_name is None or d["model_name"] == model_name
        ]

    def prepare(self, request: Request) -> tuple[dict[str, Any], int, Breaker | None]:
        """Every attempt asks the group by name; one attempt when the Router does the retrying; no breaker."""
        kwargs, attempts, _ = super().prepare(request)
        del kwargs["api_base"]  # each deployment names its own
        return kwargs, 1 if self.arguments.get("num_retries") else attempts, None

    async def send(self, kwargs: dict[str, Any]) -> Any:
        """One attempt: ``router.acompletion``."""
        return await self.router().acompletion(**kwargs)

    def router(self) -> Any:
        """The ``litellm.Router``, made on first use."""
        if self._router is None:
            # Asked before the Router exists: it adds an empty price entry for every model litellm does not know.
            self._map_priced = all(model_prices(d["model"]) is not None for d in self.deployments())
            # litellm's Router retries twice by default: unless the suite says otherwise, evalcore does the retrying.
            self._router = litellm_module().Router(**{"num_retries": 0, **_with_placeholder_keys(self.arguments)})
        return self._router

    def usage(self, response: Any, contender: Contender) -> Usage:
        """Tokens from the reply; the cost from prices, or litellm's map when it prices every deployment."""
        if contender.prices is not None or self._map_priced:
            return super().usage(response, contender)
        usage = getattr(response, "usage", None)
        return Usage(getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None), None)

    def refusal(self, model: str, settings: dict[str, Any]) -> str | None:
        """Why a deployment of the group cannot be asked with these settings, or None when all can."""
        for params in self.deployments(model):
            reason = super().refusal(params["model"], settings)
            if reason:
                return f"{reason} (a deployment of {model})"
        return None

    def takes_images(self, model: str) -> bool:
        """Whether every deployment of the group takes images (a fallback may reach any of them)."""
        return all(super().takes_images(params["model"]) for params in self.deployments(model))

    def missing_keys(self, model: str, api_base: str | None) -> list[str]:
        """Environment variables the Router's deployments need and do not have (a fallback may reach any of them):
        an ``os.environ/VAR`` key that is unset, or the provider's own key of a deployment that names none
        (local servers need none)."""
        missing: list[str] = []
        for params in self.deployments():
            key = params.get("api_key")
            if isinstance(key, str) and key.startswith(ENV_REFERENCE):
                name = key.removeprefix(ENV_REFERENCE)
                found = [] if os.environ.get(name) else [name]
            elif key is None:
                found = super().missing_keys(params["model"], params.get("api_base"))
            else:
                found = []
            missing += [name for name in found if name not in missing]
        return missing


def _with_placeholder_keys(arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments with a placeholder key on each deployment with an ``api_base`` and no key, when the provider's
    key is unset (as :class:`~evalcore.models.llm.LiteLLMProvider` does): a local server takes any key, but
    litellm's client refuses to send without one."""
    arguments = copy.deepcopy(arguments)
    for deployment in arguments["model_list"]:
        params = deployment["litellm_params"]
        if "api_key" not in params and params.get("api_base") and needs_placeholder_key(params["model"]):
            params["api_key"] = PLACEHOLDER_KEY
    return arguments
