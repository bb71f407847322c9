"""Suite roots: which folders the app may run suites from, listing them, and refusing paths that leave them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evalcore.core.errors import EvalcoreError
from evalcore.explorer.sharing import bundled_suites
from evalcore.explorer.suite_roots import ROOTS_ENV, confine, suite_of_run, suite_roots, suites_under

REPO = Path(__file__).resolve().parents[2]


def make_suite(folder: Path) -> Path:
    """A folder the app counts as a suite (it is listed, not loaded)."""
    folder.mkdir(parents=True)
    (folder / "evalcore.yaml").write_text("suite: x\n", encoding="utf-8")
    return folder


def test_the_default_roots_are_the_bundled_suites_and_the_documentations_examples():
    assert suite_roots({}) == [Path("data/suites"), Path("docs/examples")]


def test_the_environment_adds_roots_separated_by_the_path_separator(tmp_path):
    listed = os.pathsep.join([str(tmp_path / "a"), "", f" {tmp_path / 'b'} ", str(tmp_path / "a")])
    assert suite_roots({ROOTS_ENV: listed})[2:] == [tmp_path / "a", tmp_path / "b"]


def test_a_secret_replaces_the_environment_and_may_be_a_list(tmp_path):
    environ = {ROOTS_ENV: str(tmp_path / "env")}
    assert suite_roots(environ, [str(tmp_path / "s1"), str(tmp_path / "s2")])[2:] == [tmp_path / "s1", tmp_path / "s2"]
    assert suite_roots(environ, str(tmp_path / "s1"))[2:] == [tmp_path / "s1"]


def test_a_root_may_start_with_the_home_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert suite_roots({ROOTS_ENV: "~/suites"})[2:] == [tmp_path / "suites"]


def test_a_folder_under_a_root_is_accepted_and_resolved(tmp_path, monkeypatch):
    suite = make_suite(tmp_path / "root" / "team" / "s")
    assert confine(suite, [tmp_path / "root"]) == suite.resolve()
    assert confine(tmp_path / "root", [tmp_path / "root"]) == (tmp_path / "root").resolve()
    monkeypatch.chdir(tmp_path)
    assert confine("root/team/s", [Path("root")]) == suite.resolve()  # relative to the working directory


def test_a_folder_outside_every_root_is_refused_with_the_roots_listed(tmp_path):
    roots = [tmp_path / "a", tmp_path / "b"]
    with pytest.raises(EvalcoreError) as refused:
        confine(tmp_path / "elsewhere", roots)
    message = str(refused.value)
    assert message.startswith(f"{tmp_path / 'elsewhere'}: is outside the suite folders this app may run")
    assert f"({roots[0]}, {roots[1]})" in message and ROOTS_ENV in message and "\n" not in message


def test_a_folder_whose_name_only_starts_like_a_root_is_refused(tmp_path):
    with pytest.raises(EvalcoreError, match="is outside"):
        confine(make_suite(tmp_path / "root-other"), [tmp_path / "root"])


def test_dot_dot_that_leaves_a_root_is_refused(tmp_path):
    make_suite(tmp_path / "secret")
    (tmp_path / "root").mkdir()
    with pytest.raises(EvalcoreError, match="is outside"):
        confine(tmp_path / "root" / ".." / "secret", [tmp_path / "root"])
    assert confine(tmp_path / "root" / "x" / ".." / "y", [tmp_path / "root"]) == (tmp_path / "root" / "y").resolve()


def test_a_symbolic_link_that_leaves_a_root_is_refused(tmp_path):
    outside = make_suite(tmp_path / "outside")
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "link").symlink_to(outside, target_is_directory=True)
    with pytest.raises(EvalcoreError, match="leads through a symbolic link out of the suite folders"):
        confine(tmp_path / "root" / "link", [tmp_path / "root"])


def test_a_symbolic_link_within_the_roots_is_accepted(tmp_path):
    suite = make_suite(tmp_path / "b" / "s")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "link").symlink_to(suite, target_is_directory=True)
    assert confine(tmp_path / "a" / "link", [tmp_path / "a", tmp_path / "b"]) == suite.resolve()


def test_a_root_reached_through_a_symbolic_link_still_confines(tmp_path):
    suite = make_suite(tmp_path / "real" / "s")
    (tmp_path / "alias").symlink_to(tmp_path / "real", target_is_directory=True)
    assert confine(suite, [tmp_path / "alias"]) == suite.resolve()
    with pytest.raises(EvalcoreError):
        confine(tmp_path / "real" / ".." / "x", [tmp_path / "alias"])


def test_suites_under_one_root_are_named_by_their_path_below_it(tmp_path):
    root = tmp_path / "root"
    make_suite(root / "intake")
    make_suite(root / "team" / "qa")
    make_suite(root / "team" / "deep" / "too-deep")
    make_suite(root / ".hidden")
    (root / "notes").mkdir()
    assert suites_under([root]) == {"intake": root / "intake", "team/qa": root / "team" / "qa"}


def test_a_root_that_is_itself_a_suite_is_listed_under_its_name(tmp_path):
    suite = make_suite(tmp_path / "single")
    make_suite(suite / "datasets" / "inner")  # a suite's own folders are not searched
    assert suites_under([suite]) == {"single": suite}


def test_two_roots_holding_the_same_folder_name_stay_distinct(tmp_path):
    first, second = tmp_path / "x" / "suites", tmp_path / "y" / "suites"
    make_suite(first / "intake")
    make_suite(second / "intake")
    make_suite(tmp_path / "z" / "evals" / "intake")
    roots = [first, second, tmp_path / "z" / "evals"]
    assert suites_under(roots) == {
        "x/suites/intake": first / "intake",
        "y/suites/intake": second / "intake",
        "z/evals/intake": tmp_path / "z" / "evals" / "intake",
    }
    assert suites_under([first, tmp_path / "z" / "evals"]) == {
        "suites/intake": first / "intake",
        "evals/intake": tmp_path / "z" / "evals" / "intake",
    }


def test_suites_under_leave_out_a_link_that_leaves_the_roots_and_missing_roots(tmp_path):
    root = tmp_path / "root"
    make_suite(root / "kept")
    (root / "link").symlink_to(make_suite(tmp_path / "outside"), target_is_directory=True)
    assert suites_under([root, tmp_path / "missing"]) == {"root/kept": root / "kept"}


def test_suites_under_the_default_roots_are_the_bundled_ones_and_the_examples(monkeypatch):
    monkeypatch.chdir(REPO)
    listed = suites_under(suite_roots({}))
    assert {"suites/intake", "suites/support", "examples/receipts"} <= set(listed)
    assert listed["suites/intake"] == Path("data/suites/intake")  # as written: a run records the path it was given
    assert listed["examples/receipts"] == Path("docs/examples/receipts")
    bundled = bundled_suites(REPO / "data" / "suites")
    assert {f"suites/{name}": folder.relative_to(REPO) for name, folder in bundled.items()}.items() <= listed.items()


def test_the_run_page_opens_on_the_suite_named_like_the_run_else_the_first(tmp_path):
    suites = {"agent": tmp_path / "agent", "intake": tmp_path / "intake"}
    assert suite_of_run(suites, "intake") == 1
    assert suite_of_run(suites, "elsewhere") == 0
    assert suite_of_run(suites, None) == 0


def test_the_run_page_opens_on_the_folder_a_run_recorded_before_one_of_the_same_name(tmp_path):
    suites = {"data/intake": tmp_path / "data" / "intake", "mine/intake": tmp_path / "mine" / "intake"}
    assert suite_of_run(suites, "intake", str(tmp_path / "mine" / "intake")) == 1
    assert suite_of_run(suites, "intake", str(tmp_path / "gone" / "intake")) == 0
