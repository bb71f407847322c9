"""What app.py's server adds to Streamlit's: its frontend files sent from memory, no Nagle delay, no REPL check."""

from __future__ import annotations

import asyncio
import os
import socket
from pathlib import Path

import pytest
from streamlit import config, file_util

from pages import _startup
from pages._startup import FrontendAssets, no_delay

STATIC = Path(file_util.get_static_dir()) / "static"
CACHED = b"public, immutable, max-age=31536000"  # what Streamlit's own route says of these hashed files


class Streamlit:
    """The app behind the middleware: records what reaches it."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    async def __call__(self, scope: dict, receive, send) -> None:  # noqa: ANN001
        self.seen.append((scope["type"], scope.get("path", "")))


def request(assets: FrontendAssets, method: str, path: str, kind: str = "http") -> list[dict]:
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(assets({"type": kind, "method": method, "path": path, "headers": []}, receive, send))
    return sent


def first(folder: str, pattern: str) -> Path:
    return next((STATIC / folder).glob(pattern))


def media_type(path: Path) -> bytes:
    """The content type Streamlit's route (Starlette's FileResponse) sends for this file."""
    from starlette.responses import FileResponse

    return dict(FileResponse(path).raw_headers)[b"content-type"]


def test_streamlits_frontend_files_are_sent_from_memory_with_the_headers_streamlit_gives_them():
    streamlit = Streamlit()
    assets = FrontendAssets(streamlit)
    script = first("js", "index.*.js")
    for _ in range(2):  # read from disk, then from memory
        start, body = request(assets, "GET", f"/static/js/{script.name}")
        headers = dict(start["headers"])
        assert start["status"] == 200 and body["body"] == script.read_bytes()
        assert headers[b"content-type"] == media_type(script)
        assert headers[b"content-length"] == str(script.stat().st_size).encode()
        assert headers[b"cache-control"] == CACHED
    start, body = request(assets, "HEAD", f"/static/js/{script.name}")
    assert dict(start["headers"])[b"content-length"] == str(script.stat().st_size).encode() and body["body"] == b""
    style, font = first("css", "index.*.css"), first("media", "*.woff2")
    assert dict(request(assets, "GET", f"/static/css/{style.name}")[0]["headers"])[b"content-type"] == (
        media_type(style))
    assert dict(request(assets, "GET", f"/static/media/{font.name}")[0]["headers"])[b"content-type"] == (
        media_type(font))
    assert streamlit.seen == []


@pytest.mark.parametrize(("method", "path", "kind"), [
    ("GET", "/", "http"),  # index.html: Streamlit sends it with no-cache
    ("GET", "/_stcore/health", "http"),
    ("GET", "/static/js/no-such-file.js", "http"),
    ("GET", "/static/js/../../index.html", "http"),  # not a name of the folder: Streamlit's own checks answer
    ("GET", "/static/js/", "http"),
    ("POST", "/static/js/{index}", "http"),
    ("GET", "/_stcore/stream", "websocket"),
])
def test_every_other_request_goes_to_streamlit(method, path, kind):
    streamlit = Streamlit()
    path = path.format(index=first("js", "index.*.js").name)
    assert request(FrontendAssets(streamlit), method, path, kind) == []
    assert streamlit.seen == [(kind, path)]


def test_under_a_base_url_path_the_files_are_found_there(monkeypatch):
    get_option = config.get_option
    monkeypatch.setattr(config, "get_option", lambda key: "/evals/" if key == "server.baseUrlPath" else get_option(key))
    streamlit = Streamlit()
    assets = FrontendAssets(streamlit)
    script = first("js", "index.*.js")
    assert request(assets, "GET", f"/evals/static/js/{script.name}")[1]["body"] == script.read_bytes()
    assert request(assets, "GET", f"/static/js/{script.name}") == []  # outside the base path: Streamlit's
    assert streamlit.seen == [("http", f"/static/js/{script.name}")]


@pytest.mark.skipif(not any(os.path.isdir(f) for f in ("/proc/self/fd", "/dev/fd")), reason="no descriptor list")
def test_no_delay_turns_nagle_off_on_listening_sockets_and_their_connections_inherit_it():
    nodelay = (socket.IPPROTO_TCP, socket.TCP_NODELAY)
    with socket.socket(socket.AF_INET) as listener:  # as Streamlit binds it: no protocol named
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        assert listener.getsockopt(*nodelay) == 0
        with socket.create_connection(listener.getsockname()) as own:
            assert no_delay() >= 1
            assert listener.getsockopt(*nodelay) == 1
            assert own.getsockopt(*nodelay) == 0  # a connection of this process's own is left as it is
            listener.accept()[0].close()  # the kernel made own's server end before: as it was
            with socket.create_connection(listener.getsockname()):
                accepted, _ = listener.accept()
                with accepted:
                    assert accepted.getsockopt(*nodelay) == 1


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no descriptor list")
def test_no_delay_leaves_no_descriptor_behind():
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(3):
        no_delay()
    assert len(os.listdir("/proc/self/fd")) == before


def start_server(monkeypatch: pytest.MonkeyPatch, then=lambda: None) -> None:  # noqa: ANN001
    """Run the server's lifespan (without its warm-up), calling ``then`` while it serves."""
    from streamlit.runtime.pages_manager import PagesManager

    monkeypatch.setattr(PagesManager, "uses_pages_directory", PagesManager.uses_pages_directory)  # the lifespan sets it
    monkeypatch.setattr(_startup, "warm_up", lambda: None)

    async def serve() -> None:
        async with _startup.lifespan(None):
            then()

    asyncio.run(serve())


def test_the_server_turns_nagle_off_as_it_starts(monkeypatch):
    calls: list[bool] = []
    monkeypatch.setattr(_startup, "no_delay", lambda: calls.append(True) or 1)
    start_server(monkeypatch)
    assert calls == [True]


def test_the_server_skips_streamlits_repl_check_that_walks_every_loaded_module(monkeypatch):
    """Streamlit's once-a-process REPL check (inspect.stack()) took 0.1-0.3 s of a fresh server's first page."""
    from streamlit import delta_generator, env_util

    checks: list[bool] = []
    monkeypatch.setattr(delta_generator, "_use_warning_has_been_displayed", False)  # fails if Streamlit renames it
    monkeypatch.setattr(env_util, "is_repl", lambda: checks.append(True) or False)
    start_server(monkeypatch, then=delta_generator._maybe_print_use_warning)  # what a page's first element calls
    assert checks == []
