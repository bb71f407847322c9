"""Turn a lineup into contenders: list settings (the prompt too) multiply, command-line flags beat the file."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from evalcore.core.errors import ConfigError
from evalcore.core.records import SHORT_NAMES, Contender, Refusal
from evalcore.models.registry import provider_for
from evalcore.models.types import NameProblem
from evalcore.suite.config import LineupEntryModel, SuiteModel
from evalcore.suite.prompts import PROMPT_SETTING
from evalcore.suite.settings import settings_problem


@dataclass
class Overrides:
    """Command-line choices that beat the suite file."""

    models: list[str] = field(default_factory=list)
    settings: dict[str, list[Any]] = field(default_factory=dict)
    api_base: str | None = None


def expand_lineup(config: SuiteModel, overrides: Overrides | None = None) -> list[Contender]:
    """Every contender of the lineup, in lineup order; a repeated id is a configuration error."""
    overrides = overrides or Overrides()
    found = settings_problem(overrides.settings)  # the CLI checked its flags; a caller of the API may not have
    if found:
        raise ConfigError(f"settings.{found[0]}: {found[1]}")
    entries = _entries(config, overrides)
    if not entries:
        raise ConfigError("evalcore.yaml: lineup: empty. Add `lineup: [{model: fake/oracle}]` or pass -m MODEL.")
    contenders: list[Contender] = []
    for entry in entries:
        contenders.extend(_expand_entry(entry, config, overrides))
    _check_unique_ids(contenders)
    return contenders


def _entries(config: SuiteModel, overrides: Overrides) -> list[LineupEntryModel]:
    if not overrides.models:
        return list(config.lineup)
    return [LineupEntryModel(model=m) for m in overrides.models]


def _expand_entry(entry: LineupEntryModel, config: SuiteModel, overrides: Overrides) -> list[Contender]:
    varied = _varied(entry, overrides)
    for key, values in varied.items():
        if not values:
            raise ConfigError(f"evalcore.yaml: lineup: {entry.model}: settings.{key}: empty list")
    keys = list(varied)
    priced = entry.prices or config.prices.get(entry.model)
    prices = priced.model_dump(exclude_none=True) if priced else None
    api_base = overrides.api_base or entry.api_base or (None if _is_fake(entry.model) else config.api_base)
    router = None
    if entry.router is not None:
        router, api_base = _router_of(entry, overrides), None
        prices = prices or entry.router.shared_prices(entry.model)
    contenders = []
    for combo in itertools.product(*(varied[k] for k in keys)):
        chosen = dict(zip(keys, combo, strict=True))
        settings = {**config.defaults, **chosen}
        contenders.append(
            Contender(
                id=contender_id(entry.model, chosen),
                model=entry.model,
                settings={k: v for k, v in settings.items() if v is not None},
                api_base=api_base,
                prices=prices,
                router=router,
            )
        )
    return contenders


def _router_of(entry: LineupEntryModel, overrides: Overrides) -> dict[str, Any]:
    """The ``litellm.Router`` arguments of a router entry (its deployments name their own endpoints)."""
    assert entry.router is not None
    if overrides.api_base:
        raise ConfigError(
            f"evalcore.yaml: lineup: {entry.model}: --api-base cannot redirect a router entry: each deployment "
            "of its router names its own api_base. Leave out --api-base, or pick models with -m."
        )
    return entry.router.litellm_arguments()


def _varied(entry: LineupEntryModel, overrides: Overrides) -> dict[str, list[Any]]:
    """The entry's settings as lists of values, the command line's beating them; the prompt first, as in
    ``openai/gpt-4o-mini · prompt=terse · t=0``."""
    varied: dict[str, list[Any]] = {k: v if isinstance(v, list) else [v] for k, v in entry.settings.items()}
    if entry.prompt is not None:
        if PROMPT_SETTING in varied:
            raise ConfigError(
                f"evalcore.yaml: lineup: {entry.model}: the prompt is given twice (prompt: and settings.prompt). "
                "Keep `prompt:`."
            )
        varied[PROMPT_SETTING] = list(entry.prompt) if isinstance(entry.prompt, list) else [entry.prompt]
    varied.update(overrides.settings)
    if PROMPT_SETTING not in varied:
        return varied
    prompts = [v if v is None else str(v) for v in varied.pop(PROMPT_SETTING)]
    return {PROMPT_SETTING: prompts, **varied}


def contender_id(model: str, chosen: dict[str, Any]) -> str:
    """``model · effort=low · t=0.2``: the model plus the settings its lineup entry chose."""
    parts = [model] + [f"{SHORT_NAMES.get(k, k)}={_show(v)}" for k, v in chosen.items()]
    return " · ".join(parts)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _is_fake(model: str) -> bool:
    return model.startswith("fake/")


def _check_unique_ids(contenders: list[Contender]) -> None:
    seen: set[str] = set()
    for contender in contenders:
        if contender.id in seen:
            raise ConfigError(
                f"evalcore.yaml: lineup: contender {contender.id!r} appears twice. "
                "Remove the repeated entry or give it different settings."
            )
        seen.add(contender.id)


def split_refused(contenders: list[Contender], images: bool = False) -> tuple[list[Contender], list[Refusal]]:
    """Ask each contender's provider whether it can be asked (and, when the cases carry ``images``, whether its
    model takes images); refuse the rest by name."""
    kept, refused = [], []
    for contender in contenders:
        sent = {k: v for k, v in contender.settings.items() if k != PROMPT_SETTING}  # the prompt is ours, not sent
        provider = provider_for(contender)
        reason = provider.refusal(contender.model, sent)
        if not reason and images and not provider.takes_images(contender.model):
            reason = (
                f"{contender.model} does not take images, and the cases carry some. Leave it out, or use a model "
                "that takes images (litellm.supports_vision; fake/vision offline)"
            )
        if reason:
            refused.append(Refusal(model=contender.model, settings=dict(contender.settings), reason=reason))
        else:
            kept.append(contender)
    return kept, refused


def name_problems(contenders: list[Contender]) -> dict[str, NameProblem]:
    """What is wrong with each model id of the lineup, by id, asking each provider that can tell
    (``name_problem``): litellm is asked only when the lineup holds a model it calls."""
    found: dict[str, NameProblem] = {}
    for contender in contenders:
        check = None if contender.router is not None else getattr(provider_for(contender), "name_problem", None)
        problem = check(contender.model, contender.api_base) if check is not None else None
        if problem is not None:
            found.setdefault(contender.model, problem)
    return found


def missing_api_keys(contenders: list[Contender]) -> dict[str, list[str]]:
    """Environment variables each contender's model needs and does not have: {model: [VAR, ...]}."""
    missing: dict[str, list[str]] = {}
    for contender in contenders:
        keys = provider_for(contender).missing_keys(contender.model, contender.api_base)
        if keys:
            missing[contender.model] = keys
    return missing
