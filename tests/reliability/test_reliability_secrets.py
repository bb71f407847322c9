"""API keys never reach the database, the run file, the logs or a page.

A recognisable fake key sits in ``OPENAI_API_KEY`` while a run calls the local OpenAI-compatible server,
which answers some calls with errors that quote the request's ``Authorization`` header back (as a
careless provider might). Then every byte evalcore wrote or logged is searched for the key.
"""

from __future__ import annotations

import gzip
import json
import logging
from pathlib import Path

from evalcore.cli import main
from evalcore.storage.store import Store
from tests.app.test_app_shared import open_page, seed, texts
from tests.openai_server import OpenAIServer
from tests.suites import CASES, write_suite

FAKE_KEY = "sk-evalcore-FAKE-KEY-0123456789abcdefSECRET"
#: The key's distinctive middle: a partial or re-encoded leak shows it too.
FRAGMENTS = (FAKE_KEY, "FAKE-KEY-0123456789abcdef", "0123456789abcdefSECRET")
#: Per call: an auth error quoting the key, a bad request quoting it, a 500 quoting it then a retry that works.
#: The refused key comes last: it stops the contender (a key that is refused will be refused again).
SCRIPTS = ("echo_auth:400", "echo_auth:500", "ok", "echo_auth")
ANSWER = json.dumps(CASES["complete/001"][1])


def leaks(text: str | bytes) -> list[str]:
    data = text.decode("latin-1") if isinstance(text, bytes) else text
    return [f for f in FRAGMENTS if f in data]


def files_under(folder: Path) -> dict[str, bytes]:
    """Every file evalcore left in ``folder`` (database, -wal, -shm, run files), decompressed when gzip."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            found[path.name] = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    return found


def test_the_key_is_in_no_database_run_file_log_or_output(tmp_path, monkeypatch, caplog, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    caplog.set_level(logging.DEBUG)  # every logger, litellm's included, at its most verbose
    suite = write_suite(tmp_path / "suite")
    out = tmp_path / "out"
    out.mkdir()  # -o writes only into a folder that exists
    with OpenAIServer(content=ANSWER) as server:
        server.script(*SCRIPTS)
        code = main(
            [
                "run",
                str(suite),
                "--db",
                str(out / "evalcore.db"),
                "-m",
                "openai/local-model",
                "--api-base",
                server.base_url,
                "--concurrency",
                "1",
                "-o",
                str(out / "run.json.gz"),
            ]
        )
        sent = [h.get("authorization") for h in server.headers]
    assert code == 1  # the refused key stopped its case: the run is left to resume once the key is fixed
    assert sent and all(h == f"Bearer {FAKE_KEY}" for h in sent)  # the key really was sent, and echoed back
    store = Store(out / "evalcore.db")
    run = store.load_run(store.list_runs()[0]["id"])
    main(["export", run.info.id, "-o", str(out / "export.json"), "--db", str(out / "evalcore.db")])
    kinds = sorted(r.error.kind for r in run.results if r.error)
    assert kinds == ["auth", "bad_request"]
    assert all("***" in r.error.message for r in run.results if r.error)  # the echo was there, scrubbed

    written = files_under(out)
    assert {"evalcore.db", "evalcore.db-wal", "run.json.gz", "export.json"} <= set(written)
    captured = capsys.readouterr()
    assert {name: leaks(data) for name, data in written.items() if leaks(data)} == {}
    assert leaks(caplog.text) == [] and leaks(captured.out) == [] and leaks(captured.err) == []
    assert len(caplog.records) > 20  # the logs were really captured, litellm's debug lines included…
    assert "Authorization" in caplog.text  # …with the request headers litellm logs (masked)
    print(
        f"\nRELIABILITY secrets: {len(sent)} calls sent the key, 3 replies echoed it; scanned "
        f"{', '.join(f'{n} ({len(d):,} B)' for n, d in written.items())}, {len(caplog.records)} log records, "
        f"{len(captured.out) + len(captured.err):,} characters of output: 0 occurrences"
    )


def test_an_error_page_shows_the_scrubbed_message(tmp_path, monkeypatch):
    seed(monkeypatch, tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    suite = write_suite(tmp_path / "suite")
    with OpenAIServer(content=ANSWER) as server:
        server.script("echo_auth:400", "ok", "echo_auth")
        assert (
            main(
                [
                    "run",
                    str(suite),
                    "--db",
                    str(tmp_path / "evalcore.db"),
                    "-m",
                    "openai/local-model",
                    "--api-base",
                    server.base_url,
                    "--concurrency",
                    "1",
                    "--quiet",
                ]
            )
            == 1  # the refused key, last, stopped its case: resumable once the key is fixed
        )
    run = Store(tmp_path / "evalcore.db").list_runs()[0]["id"]
    for row in (0, 2):  # the two failed calls: the first case and the last (one case at a time)
        at = open_page("pages/cases.py", run=run, case_table={"selection": {"rows": [row], "columns": [], "cells": []}})
        assert not at.exception
        page = texts(at)
        assert "Incorrect API key provided: Bearer ***" in page
        assert leaks(page) == []
