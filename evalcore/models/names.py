"""Whether litellm can route a model id, read from its model list before any call (``evalcore verify``).

An unknown ``provider/`` prefix (``opnai/gpt-4o-mini``) or a bare name litellm does not list cannot be
called: an error, with the closest name litellm knows. A model its provider's list lacks may be newer than
litellm's list: a warning. An id sent to an ``api_base`` (a local server, a proxy) is that server's to name.
"""

from __future__ import annotations

from types import ModuleType

from evalcore._util.suggest import did_you_mean
from evalcore.models.types import NameProblem

#: Where litellm lists its providers, named in the error.
PROVIDERS_URL = "https://docs.litellm.ai/docs/providers"


def litellm_name_problem(litellm: ModuleType, model: str, api_base: str | None) -> NameProblem | None:
    """What is wrong with ``model`` by litellm's lists (``provider_list``, ``model_cost``, ``model_list``,
    ``models_by_provider``), or None.

    Args:
        litellm: the imported litellm module (:func:`evalcore.models.llm.litellm_module`).
        model: the lineup's model id.
        api_base: the endpoint the calls go to, if any; an id sent to one is never questioned.
    """
    if api_base or model in litellm.model_cost:
        return None
    prefix, slash, name = model.partition("/")
    providers = sorted(str(getattr(p, "value", p)) for p in litellm.provider_list)
    if not slash or prefix not in providers:
        hint = did_you_mean(prefix, providers) if slash else did_you_mean(model, litellm.model_list)
        what = f"no provider {prefix!r}" if slash else "no model by that name"
        return NameProblem(
            True,
            f"{model}: litellm knows {what}, so it cannot be called{hint} (name a provider and a model, e.g. "
            f"openai/gpt-4o-mini; providers: {PROVIDERS_URL})",
        )
    listed = litellm.models_by_provider.get(prefix) or set()
    if not listed or name in listed or model in listed:
        return None
    hint = did_you_mean(model, [f"{prefix}/{m}" for m in listed if not m.startswith(f"{prefix}/")])
    return NameProblem(
        False,
        f"litellm does not list {model} among {prefix}'s models{hint} (a model newer than litellm's list still runs)",
    )
