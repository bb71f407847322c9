"""The Cases page's view in the address bar: whose answers are listed, the answer open below the list, the
page's own toggles and its search, beside the run, filters and weights :mod:`evalcore.explorer.sharing` puts
there. Copying a Cases address shares what is on screen; opening it restores it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class CasesState:
    """The Cases page's view as the address bar carries it (beside the run, filters and weights)."""

    #: The contender whose answers are listed (None: all of them).
    by: str | None = None
    #: The answer open below the list: (contender, dataset, case id, sample).
    case: tuple[str, str, str, int] | None = None
    #: The page's own filters that are on, of :data:`CASES_ONLY`.
    only: tuple[str, ...] = ()
    #: Words searched for in the inputs.
    search: str = ""


#: The query keys of a Cases view: ``by``, ``case`` (``DATASET/CASE_ID``), ``of`` (the open answer's contender,
#: when not ``by``), ``sample`` (when not 0), repeated ``only`` and ``q`` (the search).
CASES_KEYS = ("by", "case", "of", "sample", "only", "q")
#: The Cases page's toggles, as ``only`` names them.
CASES_ONLY = ("failures", "errors", "hallucinations", "disagree")


def encode_cases(state: CasesState) -> dict[str, str | list[str]]:
    """The query string of a Cases view (see :data:`CASES_KEYS`)."""
    params: dict[str, str | list[str]] = {}
    if state.by:
        params["by"] = state.by
    if state.case is not None:
        contender, dataset, case, sample = state.case
        params["case"] = f"{dataset}/{case}"
        if contender != state.by:
            params["of"] = contender
        if sample:
            params["sample"] = str(sample)
    if state.only:
        params["only"] = list(state.only) if len(state.only) > 1 else state.only[0]
    if state.search:
        params["q"] = state.search
    return params


def decode_cases(params: Mapping[str, str | Sequence[str]]) -> CasesState:
    """Read a Cases view back from a query string; a case without a contender (no ``of``, no ``by``), a
    malformed sample and an unknown ``only`` are left out."""

    def last(key: str) -> str | None:
        value = params.get(key)
        if value is None or isinstance(value, str):
            return value
        return str(value[-1]) if value else None

    only = params.get("only") or []
    by, of, where, sample = last("by"), last("of"), last("case"), last("sample") or "0"
    dataset, sep, case_id = (where or "").partition("/")
    contender = of or by
    case = None
    if sep and dataset and case_id and contender and sample.isdigit():
        case = (contender, dataset, case_id, int(sample))
    listed = [only] if isinstance(only, str) else [str(o) for o in only]
    return CasesState(by, case, tuple(o for o in CASES_ONLY if o in listed), last("q") or "")
