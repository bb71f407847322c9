"""litellm's batch API behind :class:`~evalcore.models.batches.BatchClient` (``evalcore run --batch``).

A batch is a JSONL file of chat requests uploaded with ``litellm.acreate_file(purpose="batch")``, sent with
``litellm.acreate_batch``, polled with ``litellm.aretrieve_batch`` and read with ``litellm.afile_content`` (its
output file, and its error file for the requests that failed): litellm's public batch functions, which speak
the OpenAI batch protocol and translate it for the providers it supports (Anthropic, Vertex, Bedrock …). The
requests carry what :func:`evalcore.models.llm._call_kwargs` would send interactively. A line of the output that
is not JSON, or a request with no line, is an error of that request, never a reply.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Mapping
from typing import Any

from evalcore.core.errors import CallFailed
from evalcore.core.records import Contender, Usage
from evalcore.models.batches import Answers, BatchState, Prices, priced
from evalcore.models.llm import (
    PLACEHOLDER_KEY,
    UNSENT_SETTINGS,
    classify,
    litellm_module,
    needs_placeholder_key,
    reply_content,
    scrub,
)
from evalcore.models.types import Reply, Request

log = logging.getLogger(__name__)

#: The endpoint every line of a batch asks.
ENDPOINT = "/v1/chat/completions"
#: The most of an error message kept.
MAX_SAID = 500


def listed_batch_prices(model: str) -> Prices | None:
    """litellm's batch price of ``model`` (``input_cost_per_token_batches``…), or None when its map has none."""
    try:
        info = dict(litellm_module().get_model_info(model))
    except Exception:
        return None
    price_in, price_out = info.get("input_cost_per_token_batches"), info.get("output_cost_per_token_batches")
    if isinstance(price_in, int | float) and isinstance(price_out, int | float):
        return float(price_in), float(price_out)
    return None


class LiteLLMBatchClient:
    """Batches of any provider litellm sends batches to (see the module)."""

    async def submit(self, contender: Contender, requests: Mapping[str, Request]) -> str:
        model, provider = _route(contender.model)
        lines = [_line(custom_id, model, request) for custom_id, request in requests.items()]
        data = ("\n".join(json.dumps(line) for line in lines) + "\n").encode()
        litellm = litellm_module()
        try:
            uploaded = await litellm.acreate_file(
                file=("evalcore-batch.jsonl", io.BytesIO(data)), purpose="batch", custom_llm_provider=provider,
                **_endpoint(contender),
            )  # fmt: skip
            batch = await litellm.acreate_batch(
                completion_window="24h", endpoint=ENDPOINT, input_file_id=uploaded.id, custom_llm_provider=provider,
                **_endpoint(contender),
            )  # fmt: skip
        except Exception as exc:
            raise _failed(contender.model, "sending a batch", exc) from None
        return str(batch.id)

    async def state(self, contender: Contender, batch_id: str) -> BatchState:
        _, provider = _route(contender.model)
        try:
            batch = await litellm_module().aretrieve_batch(
                batch_id=batch_id, custom_llm_provider=provider, **_endpoint(contender)
            )
        except Exception as exc:
            raise _failed(contender.model, f"reading batch {batch_id}", exc) from None
        counts = getattr(batch, "request_counts", None)
        done = (getattr(counts, "completed", 0) or 0) + (getattr(counts, "failed", 0) or 0)
        errors = getattr(getattr(batch, "errors", None), "data", None) or []
        reason = "; ".join(str(getattr(e, "message", e)) for e in errors) or None
        has_output = bool(getattr(batch, "output_file_id", None) or getattr(batch, "error_file_id", None))
        return BatchState(str(batch.status), reason, done, getattr(counts, "total", 0) or 0, has_output)

    async def replies(
        self, contender: Contender, batch_id: str, requests: Mapping[str, Request], prices: Prices | None
    ) -> Answers:
        _, provider = _route(contender.model)
        litellm = litellm_module()
        try:
            batch = await litellm.aretrieve_batch(
                batch_id=batch_id, custom_llm_provider=provider, **_endpoint(contender)
            )
            texts = []
            for file_id in (getattr(batch, "output_file_id", None), getattr(batch, "error_file_id", None)):
                if file_id:
                    found = await litellm.afile_content(
                        file_id=file_id, custom_llm_provider=provider, **_endpoint(contender)
                    )
                    texts.append(found.content.decode("utf-8", "replace"))
        except Exception as exc:
            raise _failed(contender.model, f"reading batch {batch_id}'s replies", exc) from None
        answers: Answers = {}
        for text in texts:
            for number, raw in enumerate(text.splitlines(), 1):
                if raw.strip():
                    _read_line(raw, number, batch_id, contender, prices, answers)
        return answers


def _read_line(
    raw: str, number: int, batch_id: str, contender: Contender, prices: Prices | None, into: Answers
) -> None:
    """One line of a batch's output: a reply or an error of its custom id; a line that is not one is logged."""
    try:
        line = json.loads(raw)
        custom_id = line["custom_id"]
    except (ValueError, KeyError, TypeError):
        log.warning("batch %s: line %d of its output is not a batch reply: %.80r", batch_id, number, raw)
        return
    response, error = line.get("response") or {}, line.get("error")
    body = response.get("body") if isinstance(response, dict) else None
    status = response.get("status_code", 200) if isinstance(response, dict) else None
    if error or not isinstance(body, dict) or status != 200:
        said = (error or {}).get("message") if isinstance(error, dict) else None
        said = said or (body or {}).get("error", {}).get("message") if isinstance(body, dict) else said
        into[custom_id] = CallFailed(
            "bad_request" if status in (400, 404, 422) or error else "transport",
            scrub(f"{contender.model}: batch {batch_id}: the request failed: {said or status or line}")[:MAX_SAID],
        )
        return
    try:
        response_obj = litellm_module().ModelResponse(**body)
        text, tool_calls = reply_content(response_obj)
    except Exception as exc:
        into[custom_id] = CallFailed("transport", f"{contender.model}: batch {batch_id}: unusable reply: {exc}")
        return
    usage = body.get("usage") or {}
    tokens = Usage(usage.get("prompt_tokens"), usage.get("completion_tokens"), None)
    into[custom_id] = Reply(text=text, usage=priced(tokens, prices), latency_s=0.0, tool_calls=tool_calls)


def _route(model: str) -> tuple[str, str]:
    """The provider's own model name and litellm's provider name (``openai/gpt-4o`` → ``gpt-4o``, ``openai``)."""
    try:
        name, provider = litellm_module().get_llm_provider(model)[:2]
    except Exception:
        name, provider = model.partition("/")[2] or model, model.partition("/")[0] or "openai"
    return str(name), str(provider)


def _endpoint(contender: Contender) -> dict[str, Any]:
    """Where the contender's calls go (its ``api_base``), with a placeholder key for a local server."""
    found: dict[str, Any] = {}
    if contender.api_base:
        found["api_base"] = contender.api_base
        if needs_placeholder_key(contender.model):
            found["api_key"] = PLACEHOLDER_KEY
    return found


def _line(custom_id: str, model: str, request: Request) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": model,
        "messages": request.messages,
        **{k: v for k, v in request.contender.settings.items() if k not in UNSENT_SETTINGS},
    }
    if request.response_format is not None:
        body["response_format"] = request.response_format
    body.update(request.params)
    return {"custom_id": custom_id, "method": "POST", "url": ENDPOINT, "body": body}


def _failed(model: str, doing: str, exc: BaseException) -> CallFailed:
    said = scrub(f"{model}: {doing} failed: {type(exc).__name__}: {exc}")[:MAX_SAID]
    return CallFailed(classify(exc), said)
