"""The reply cache's part in the provider layer: what names a request, and the provider that asks the cache first.

A run with the cache on (``evalcore run --cache``, ``docs/cache.md``) makes a :class:`ReplyCache` current
(:func:`caching`); while it is, every provider the registry hands out
(:func:`evalcore.models.registry.get_provider`, :func:`~evalcore.models.registry.provider_for`) is a
:class:`CachingProvider`: a contender's calls, an agent's steps, a judge's calls. Each call is named by
:func:`request_key`: the provider and model, the endpoint, every setting sent, the messages (an image by the
SHA-256 of its bytes), the response format, the tools and other parameters, the sample, and the draw: the how
many-th identical request of the run this is, so a judge asked three times the same question, or three samples,
are three entries, and a cached lucky answer never stands in for another draw. A hit comes back as a reply with
:attr:`~evalcore.models.types.Reply.cached_at` set; a miss is asked of the model and stored when it succeeds
(a failed call raises, so an error is never stored).

The cache sits under the budget's meter (:mod:`evalcore.models.metering`), which settles a hit at no cost.
Where the replies are kept is :mod:`evalcore.execution.reply_cache`'s business (a table of the store).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol

from evalcore.models.types import Provider, Reply, Request, WrappedProvider

#: A setting that chooses what is asked (the prompt), already in the messages: not part of the key.
_UNSENT = frozenset({"prompt"})


class ReplyCache(Protocol):
    """Where a run's replies are kept and found (:class:`evalcore.execution.reply_cache.StoredReplies`)."""

    def draw(self, digest: str) -> int:
        """How many requests with this digest the run made before this one (0 for the first)."""

    async def lookup(self, key: str) -> Reply | None:
        """The stored reply of ``key`` (its ``cached_at`` set), or None: none, too old, or the cache unusable."""

    async def save(self, key: str, model: str, reply: Reply) -> None:
        """Keep a reply the model just gave (a cache that cannot be written is skipped, never an error)."""


_CACHE: ContextVar[ReplyCache | None] = ContextVar("evalcore_reply_cache", default=None)


@contextmanager
def caching(cache: ReplyCache | None) -> Iterator[None]:
    """Make ``cache`` (None: none) the current one, for the providers handed out and the tasks started inside."""
    token = _CACHE.set(cache)
    try:
        yield
    finally:
        _CACHE.reset(token)


def current_cache() -> ReplyCache | None:
    """The current reply cache (None: none): a batch run (:mod:`evalcore.execution.batching`) asks it itself."""
    return _CACHE.get()


def cached(provider: Provider) -> Provider:
    """``provider`` behind the current cache; itself when there is none or the provider opts out (``cacheable``
    False: an application endpoint, whose replies depend on more than the request)."""
    cache = _CACHE.get()
    if cache is None or isinstance(provider, CachingProvider) or not getattr(provider, "cacheable", True):
        return provider
    return CachingProvider(provider, cache)


def request_digest(request: Request, extra: Any = None) -> str:
    """The SHA-256 of everything in ``request`` that can change the reply (see the module), and ``extra``: what
    else the provider reads (a fake model reads the case's expected answer)."""
    contender = request.contender
    named = {
        "model": contender.model,
        "api_base": contender.api_base,
        "router": contender.router,
        "settings": {k: v for k, v in contender.settings.items() if k not in _UNSENT},
        "messages": _images_hashed(request.messages),
        "response_format": request.response_format,
        "params": request.params,
        "sample": request.sample,
        "extra": extra,
    }
    text = json.dumps(named, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def request_key(digest: str, draw: int) -> str:
    """The cache key of the ``draw``-th request of a run with this digest."""
    return f"{digest}.{draw}"


def _images_hashed(value: Any) -> Any:
    """``value`` with every ``data:`` URL (an inline image) as the SHA-256 of its text: the same key, far shorter."""
    if isinstance(value, str):
        if value.startswith("data:"):
            return "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest()
        return value
    if isinstance(value, dict):
        return {k: _images_hashed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_images_hashed(v) for v in value]
    return value


class CachingProvider(WrappedProvider):
    """A provider whose calls look in a :class:`ReplyCache` first; everything else is the provider's own."""

    def __init__(self, inner: Provider, cache: ReplyCache):
        super().__init__(inner)
        self.cache = cache

    async def complete(self, request: Request) -> Reply:
        """The stored reply of the request's key, else the model's, stored when it came.

        Raises:
            CallFailed: the provider's (never stored).
        """
        extra = getattr(self.inner, "cache_extra", None)
        digest = request_digest(request, extra(request) if extra is not None else None)
        key = request_key(digest, self.cache.draw(digest))
        found = await self.cache.lookup(key)
        if found is not None:
            return found
        reply = await self.inner.complete(request)
        if reply.cached_at is None:  # a reply an inner cache gave is stored already
            await self.cache.save(key, request.contender.model, reply)
        return reply
