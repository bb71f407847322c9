"""``evalcore report`` as a user runs it: from a run file or a stored run, HTML or Markdown, clear errors."""

from __future__ import annotations

import pytest

from evalcore.cli import main
from evalcore.explorer.report import read_embedded
from evalcore.runfile.write import write_run_file
from tests.report_runs import edge_run
from tests.reporting_plugin import install_fake_reporters


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def run_file(tmp_path):
    return write_run_file(edge_run(), tmp_path / "run.json")


def test_report_writes_one_html_file(capsys, tmp_path, run_file):
    target = tmp_path / "out" / "report.html"
    target.parent.mkdir()
    code, out, err = _run(capsys, "report", run_file, "-o", target)
    assert code == 0 and out == ""
    assert err.startswith(f"wrote {target} (") and err.rstrip().endswith("KiB)")
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert read_embedded(page)["weights"] == edge_run().info.weights


def test_report_writes_report_html_in_the_current_folder_by_default(capsys, monkeypatch, tmp_path, run_file):
    monkeypatch.chdir(tmp_path)
    code, _, _ = _run(capsys, "report", run_file)
    assert code == 0 and (tmp_path / "report.html").is_file()


def test_report_weights_set_the_sliders_and_the_ranking(capsys, tmp_path, run_file):
    target = tmp_path / "r.html"
    code, _, _ = _run(capsys, "report", run_file, "--weights", "cost=-1", "-o", target)
    data = read_embedded(target.read_text(encoding="utf-8"))
    assert code == 0 and data["weights"] == {"cost": -1.0}
    assert data["sliders"]["cost"] == -100 and data["sliders"]["score"] == 0
    # Free and cheapest are both at the bottom of the log scale: they tie on wscore, and score decides.
    top = data["tables"][0]["rows"][:2]
    assert [(r["contender"], r["wscore"]) for r in top] == [
        ("fake/lazy · t=0.0", 100.0),
        ("fake/perfect · t=0.0", 100.0),
    ]


def test_report_dataset_keeps_one_dataset(capsys, tmp_path, run_file):
    target = tmp_path / "r.html"
    code, _, _ = _run(capsys, "report", run_file, "--dataset", "roofing", "-o", target)
    tables = read_embedded(target.read_text(encoding="utf-8"))["tables"]
    assert code == 0 and [t["dataset"] for t in tables] == [None, "roofing"]


def test_report_markdown_goes_to_stdout(capsys, run_file):
    code, out, _ = _run(capsys, "report", run_file, "--format", "markdown")
    assert code == 0 and out.startswith("# evalcore report: intake\n")
    assert "## Overall" in out and "## roofing" in out and "## Glossary" in out


def test_report_of_a_stored_run_by_id(capsys, tmp_path, run_file):
    db = tmp_path / "store.db"
    assert _run(capsys, "import", run_file, "--db", db)[0] == 0
    target = tmp_path / "r.html"
    code, _, err = _run(capsys, "report", "run-edges", "--db", db, "-o", target)
    assert code == 0, err
    page = target.read_text(encoding="utf-8")
    assert "<td>run-edges</td>" in page and "<details class='case'>" in page


def test_report_refuses_a_weight_it_cannot_use(capsys, run_file):
    code, out, err = _run(capsys, "report", run_file, "--weights", "speed=1")
    assert code == 2 and out == ""
    assert err.startswith("error: cannot weight 'speed': allowed names are score, errors, cost, time")


def test_report_refuses_a_negative_cap(capsys, run_file):
    code, _, err = _run(capsys, "report", run_file, "--failing-per-contender", "-1")
    assert code == 2 and "--failing-per-contender -1: give 0 or more" in err


def test_report_of_an_unknown_run_says_so(capsys, tmp_path):
    code, _, err = _run(capsys, "report", "no-such-run", "--db", tmp_path / "empty.db")
    assert code == 2 and err.startswith("error: ") and "no-such-run" in err


def test_compare_html_is_one_offline_page_with_the_verdict_forest_and_flips(capsys, tmp_path):
    from tests.factories import binary_run

    who = '<script>window.__pwned="x"</script>'
    base = write_run_file(binary_run("base-0001", {who: [1] * 40}), tmp_path / "base.json")
    worse = write_run_file(binary_run("worse-0003", {who: [0] * 10 + [1] * 30}), tmp_path / "worse.json")
    code, out, err = _run(capsys, "compare", base, worse, "--format", "html", "--flips", "3")
    assert code == 0, err
    assert out.startswith("<!DOCTYPE html>") and out.rstrip().endswith("</html>")
    assert "REGRESSION in score" in out and "<svg" in out
    assert "Cases that changed: 10 worse (the first 3 below, 7 left out)" in out
    assert who not in out and "&lt;script&gt;window.__pwned" in out
    assert "<script" not in out.replace("&lt;script", "")  # no script of its own, none let in
    assert "default-src 'none'" in out


def test_report_writes_a_format_an_installed_package_registers(capsys, monkeypatch, tmp_path, run_file):
    install_fake_reporters(monkeypatch, tmp_path / "site", {"fake": "fake_reporters:FAKE"})
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(capsys, "report", run_file, "--format", "fake", "--weights", "cost=-1")
    assert code == 0 and out == "" and err.startswith("wrote report.fake (")
    assert (tmp_path / "report.fake").read_bytes() == b"%FAKE\x00cost"


def test_report_of_an_unknown_format_exits_2_naming_the_known_ones(capsys, run_file):
    code, out, err = _run(capsys, "report", run_file, "--format", "pdf")
    assert code == 2 and out == ""
    assert err.strip() == (
        "error: --format pdf: unknown report format 'pdf'. Known: html, markdown; a package adds one by "
        "registering it under the entry-point group 'evalcore.reporters'"
    )
