"""A real ``streamlit run app.py`` on a free port, driven by Playwright through Debian's Chromium.

The server gets its own store and bundled-runs folder (one demo run file, made once per session with
the fake lineup), so the app opens exactly as a fresh deployment would: seeded from run files.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from evalcore.storage.store import Store

# A fresh server's first visit runs the page, then reruns it through app.py's navigation (pages/_frame.py);
# on a busy two-core machine that first table can take longer than Playwright's 5 s default.
expect.set_options(timeout=20_000)

REPO = Path(__file__).resolve().parents[2]
#: Where screenshots go: ``$EVALCORE_SCREENSHOTS``, else tests/screenshots/.
SCREENSHOTS = Path(os.environ.get("EVALCORE_SCREENSHOTS") or REPO / "tests" / "screenshots")
CHROMIUM = "/usr/bin/chromium"
#: Fake models sleep this share of their realistic latency: runs take seconds, times are not all zero.
LATENCY_SCALE = "0.05"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, process: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as reply:
                if reply.read().strip() == b"ok":
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"streamlit did not answer {url}/_stcore/health within {timeout:.0f}s")


@pytest.fixture(scope="session")
def demo_run_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo suite run once with the fake lineup, exported as a run file."""
    folder = tmp_path_factory.mktemp("bundled")
    target = folder / "intake-demo.json.gz"
    env = {**os.environ, "EVALCORE_FAKE_LATENCY_SCALE": "0.01"}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "evalcore.cli",
            "run",
            "data/suites/intake",
            "--quiet",
            "--db",
            str(folder.parent / "make-demo.db"),
            "-o",
            str(target),
        ],
        cwd=REPO,
        env=env,
        check=True,
        capture_output=True,
    )
    return target


@contextlib.contextmanager
def streamlit_server(
    db: Path,
    bundled: Path,
    log_path: Path,
    port: int | None = None,
    extra_args: Sequence[str] = (),
    script: str = "app.py",
    address: str | None = "127.0.0.1",
) -> Iterator[str]:
    """``streamlit run app.py`` (or another ``script``) on ``port`` (a free one when None) with its own store
    (``db``, created empty when missing); yields the base URL.

    ``extra_args`` go to ``streamlit run``, e.g. ``--secrets.files=…`` for a server with sign-in; ``address``
    None listens on every interface, as ``streamlit run app.py`` does by default.
    """
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: apt-get install -y chromium fonts-dejavu-core")
    Store(db).close()  # the app creates no store EVALCORE_DB names; an empty one it seeds from ``bundled``
    port = port or _free_port()
    env = {
        **os.environ,
        "EVALCORE_DB": str(db),
        "EVALCORE_RUNS_DIR": str(bundled),
        "EVALCORE_FAKE_LATENCY_SCALE": LATENCY_SCALE,
    }
    env.pop("EVALCORE_VIEWER", None)
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                script,
                "--server.headless=true",
                f"--server.port={port}",
                *([f"--server.address={address}"] if address else []),
                "--browser.gatherUsageStats=false",
                "--server.fileWatcherType=none",
                *extra_args,
            ],
            cwd=REPO,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_healthy(url, process)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


@contextlib.contextmanager
def served_runs(folder: Path, *runs: Path) -> Iterator[str]:
    """A server of its own in ``folder`` (store, log, bundled-runs folder ``folder/bundled``) whose bundled runs are
    copies of ``runs`` and whatever the caller wrote to ``folder/bundled`` beforehand; yields the base URL."""
    bundled = folder / "bundled"
    bundled.mkdir(exist_ok=True)
    for run in runs:
        shutil.copy(run, bundled / run.name)
    with streamlit_server(folder / "evalcore.db", bundled, folder / "streamlit.log") as url:
        yield url


def served_runs_fixture(name: str, *runs: Path):  # noqa: ANN201
    """A module-scoped fixture: the base URL of :func:`served_runs` on copies of ``runs``, in a folder ``name``."""

    @pytest.fixture(scope="module")
    def url(tmp_path_factory: pytest.TempPathFactory, chromium) -> Iterator[str]:  # noqa: ANN001
        with served_runs(tmp_path_factory.mktemp(name), *runs) as base:
            yield base

    return url


@contextlib.contextmanager
def new_tab(browser, width: int = 1280, height: int = 1000) -> Iterator[Page]:  # noqa: ANN001
    """A fresh browser tab (its own Streamlit session) of ``width`` x ``height`` px, closed on the way out."""
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(20_000)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture(scope="session")
def app_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the shared server keeps its store (``evalcore.db``) and its log."""
    return tmp_path_factory.mktemp("server")


@pytest.fixture(scope="session")
def app_url(demo_run_file: Path, app_folder: Path) -> Iterator[str]:
    """The server every flow shares (one store: runs launched by one test are seen by the next)."""
    with streamlit_server(app_folder / "evalcore.db", demo_run_file.parent, app_folder / "streamlit.log") as url:
        yield url


@pytest.fixture(scope="session")
def chromium():  # noqa: ANN201
    """Chromium, without a server: one Playwright per process (a second sync one cannot start beside it)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: apt-get install -y chromium fonts-dejavu-core")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
        )
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def browser(app_url: str, chromium):  # noqa: ANN001, ANN201
    """The browser of the flows against the shared server (started first)."""
    return chromium


@pytest.fixture
def page(browser, request: pytest.FixtureRequest):  # noqa: ANN001, ANN201
    """A fresh browser tab (its own Streamlit session) at 1280 px wide; screenshots go to tests/screenshots/."""
    with new_tab(browser) as tab:
        yield tab


def screenshot(page, name: str) -> Path:  # noqa: ANN001
    """Save the whole window as <name>.png in :data:`SCREENSHOTS`."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


#: What a page shows where a chart comes once its tables are on screen.
CHARTS_FOLLOW = "The chart follows once the tables are on screen."


def settled(page, timeout: float = 20_000) -> None:  # noqa: ANN001
    """Wait until the page's script run has finished drawing: no element is left stale from the run (or the
    page) before. A table click that lands on a stale table is a click on the page that was, not this one."""
    from playwright.sync_api import expect

    expect(page.locator('[data-testid="stElementContainer"][data-stale="true"]')).to_have_count(0, timeout=timeout)
    expect(page.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(0, timeout=timeout)
    # A page whose charts follow its tables runs once more when they are on screen (pages/_widgets.charts_now):
    # wait for that run too, so that what a test reads next is the page's last state.
    expect(page.get_by_text(CHARTS_FOLLOW)).to_have_count(0, timeout=timeout)
    expect(page.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(0, timeout=timeout)


def enter_rater_name(page, name: str) -> None:  # noqa: ANN001
    """Type ``name`` as the rater on the Rate page. The first page a fresh server draws imports the page's
    modules and reads the run: on a busy machine that alone has taken over the default 20 s."""
    from playwright.sync_api import expect

    box = page.get_by_label("Your name")
    expect(box).to_be_visible(timeout=60_000)
    box.fill(name)
    box.press("Enter")
