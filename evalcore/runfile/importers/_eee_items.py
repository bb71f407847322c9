"""One Every Eval Ever instance line as an evalcore case and result (:mod:`evalcore.runfile.importers.eee` joins
the lines of one item and metric together)."""

from __future__ import annotations

from typing import Any

from evalcore.core import records
from evalcore.runfile.importers import _common as common


def case_of(dataset: str, case_id: str, item: dict[str, Any]) -> records.Case:
    given = common.obj(item.get("input"))
    raw = given.get("raw")
    choices = given.get("choices")
    prompt: str | dict[str, Any] = (
        {"prompt": raw, "choices": choices} if isinstance(choices, list) and choices else str(raw or "")
    )
    reference = given.get("reference")
    expected = reference[0] if isinstance(reference, list) and len(reference) == 1 else reference
    metadata = {k: v for k, v in common.obj(item.get("metadata")).items() if k not in ("sample", "variant")}
    for key in ("sample_hash", "interaction_type"):
        if item.get(key) is not None:
            metadata[key] = item[key]
    if given.get("formatted"):
        metadata["formatted"] = given["formatted"]
    variant = str(common.obj(item.get("metadata")).get("variant") or "default")
    return records.Case(
        dataset=dataset, id=case_id, variant=variant, input=prompt, expected=expected, metadata=metadata
    )


def sample_of(
    item: dict[str, Any], results: dict[tuple[str, str, int], records.Result], case: tuple[str, str], metric: str
) -> int:
    """The item's sample: its ``metadata.sample`` (as evalcore's export writes it), else the first of the case
    that has no value of this metric yet (an evaluation repeated writes one line per repeat)."""
    given = common.obj(item.get("metadata")).get("sample")
    if isinstance(given, str) and given.isdigit():
        return int(given)
    n = 0
    while (found := results.get((*case, n))) is not None and metric in found.metrics:
        n += 1
    return n


def result_of(contender: str, dataset: str, case_id: str, sample: int, item: dict[str, Any]) -> records.Result:
    output = common.obj(item.get("output"))
    replies = output.get("raw") if isinstance(output.get("raw"), list) else None
    messages = item.get("messages") if isinstance(item.get("messages"), list) else None
    if replies is not None:
        text = replies[0] if len(replies) == 1 else replies
    elif messages:
        said = [m.get("content") for m in messages if isinstance(m, dict) and m.get("role") == "assistant"]
        text = said[-1] if said else None
    else:
        text = None
    error = item.get("error")
    usage = common.obj(item.get("token_usage"))
    latency = common.obj(item.get("performance")).get("latency_ms")
    diagnostics: dict[str, Any] = {}
    if item.get("answer_attribution"):
        diagnostics["answer_attribution"] = item["answer_attribution"]
    if messages:
        diagnostics["messages"] = messages
    return records.Result(
        contender=contender,
        dataset=dataset,
        case=case_id,
        sample=sample,
        status="error" if error else "scored",
        score=None,
        output=text,
        raw=text if isinstance(text, str) else None,
        error=records.ErrorInfo(common.error_kind(str(error)), str(error)) if error else None,
        diagnostics=diagnostics,
        usage=records.Usage(common.count(usage.get("input_tokens")), common.count(usage.get("output_tokens")), None),
        latency_s=milliseconds / 1000 if (milliseconds := common.seconds(latency)) is not None else None,
    )
