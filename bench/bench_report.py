"""Issue 20: the report file of a 100,000-result run (10 contenders × 10,000 cases by default).

Figures:

- ``build``: ``build_report`` of the run read from its file, in this process (the leaderboard with 1,000
  bootstrap resamples overall and per dataset, the charts, the capped failing cases), against computing
  the same leaderboard view alone: what the page itself costs on top of the numbers it shows.
- ``size``: the file's size, and the share of it that is failing-case detail.
- ``open``: Chromium opens the file from disk (network blocked) until the overall table is on screen.
  Target: under 3 s.
- ``slider``: one slider move until every table is drawn again and laid out, timed inside the page.
- ``demo size``: the bundled demo run's report. Target: under 1 MB.

Run: ``python bench/bench_report.py [--contenders N] [--cases N] [--repeat N]``.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from _common import ROOT, arguments, best_of, note, report, synthetic_run

CHROMIUM = "/usr/bin/chromium"
#: One slider move timed inside the page: the input event re-ranks and redraws every table synchronously,
#: and reading a table's height waits for the layout.
MOVE = """() => {
  const slider = document.querySelector('#sliders input[name="cost"]');
  slider.value = "-100";
  const start = performance.now();
  slider.dispatchEvent(new Event("input"));
  document.getElementById("overall").offsetHeight;
  return performance.now() - start;
}"""


def open_times(path: Path, repeat: int) -> tuple[float, float]:
    """Best seconds from navigation to the first table, and for one slider move to redraw every table."""
    from playwright.sync_api import sync_playwright

    best_open, best_move = float("inf"), float("inf")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
        )
        for _ in range(repeat):
            context = browser.new_context(viewport={"width": 1280, "height": 1000}, offline=True)
            page = context.new_page()
            start = time.perf_counter()
            page.goto(path.as_uri(), wait_until="commit")
            page.wait_for_selector("#overall tbody tr", timeout=60_000)
            best_open = min(best_open, time.perf_counter() - start)
            best_move = min(best_move, page.evaluate(MOVE) / 1000)
            context.close()
        browser.close()
    return best_open, best_move


def main() -> int:
    args = arguments(__doc__, contenders=10, cases=10_000, repeat=3)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

    from evalcore.analysis.tables.view import leaderboard_view
    from evalcore.explorer.report import build_report
    from evalcore.runfile.read import read_run_file
    from evalcore.runfile.write import write_run_file
    from evalcore.storage.frames import results_frame

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        run_file = write_run_file(synthetic_run(args.contenders, args.cases), folder / "run.json")
        run = read_run_file(run_file)
        n = len(run.results)
        view_s, _ = best_of(
            lambda: leaderboard_view(results_frame(run), run.metrics, run.info.weights, None, run.contenders),
            args.repeat,
        )
        build_s, html = best_of(lambda: build_report(run), args.repeat)
        report(
            f"build ({n:,} results)",
            f"report {build_s:.2f} s",
            f"view alone {view_s:.2f} s",
            build_s / view_s,
            "<= 1.50",
            build_s / view_s <= 1.5,
        )
        size = len(html.encode("utf-8"))
        cases = html.index("</script>", html.index('id="report-data"')) - html.index("<h2>Failing cases")
        note("size", f"{size / 1e6:.2f} MB, of which the page's data and failing cases {cases / 1e6:.2f} MB")
        page = folder / "report.html"
        page.write_text(html, encoding="utf-8")
        if Path(CHROMIUM).exists():
            opened, moved = open_times(page, args.repeat)
            note("open", f"{opened:.2f} s to the first table (target < 3 s) {'ok' if opened < 3 else 'MISSED'}")
            note("slider", f"{moved * 1000:.0f} ms for one slider move to redraw every table")
        else:
            note("open", f"skipped: {CHROMIUM} is missing")
    demo = build_report(read_run_file(ROOT / "data" / "runs" / "intake-demo.json"))
    demo_size = len(demo.encode("utf-8"))
    note("demo size", f"{demo_size / 1e6:.2f} MB (target < 1 MB) {'ok' if demo_size < 1e6 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
