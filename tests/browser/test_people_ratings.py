"""A person rates 22 blind pairs and 6 single replies in a real browser, then reads on the Leaderboard what people
said: their Bradley–Terry ranking, the judge against them and the judge's score corrected by them, each number
worked out by hand below."""

from __future__ import annotations

import pytest

from evalcore.core.records import CORRECTED, RANK_BY, Metric
from evalcore.explorer.blinding import rate_secret
from evalcore.explorer.rating import rating_queue, typed_rater
from evalcore.runfile.write import write_run_file
from tests.browser.conftest import enter_rater_name, new_tab, screenshot, served_runs, settled
from tests.browser.test_flows import open_app
from tests.factories import judged_run

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect


def people_run():
    """judged_run(8): c0 beats c1 on every case for the pairwise judge, c0 and c2 tie, c1 and c2 are inconsistent;
    c2's reply to the first case failed. The LLM judge gave judge_score 1 to every scored reply; the suite ranks
    by the judge's score corrected by people."""
    run = judged_run(8, "run-people")
    run.info.settings[RANK_BY] = CORRECTED
    run.metrics.append(Metric("judge_score", "judge: mean of the dimensions"))
    for r in run.results:
        if r.status == "scored":
            r.metrics["judge_score"] = 1.0
    return run


RUN = people_run()
ORDER = [c.id for c in RUN.contenders]


@pytest.fixture(scope="module")
def people_url(tmp_path_factory: pytest.TempPathFactory, chromium):  # noqa: ANN001, ANN201
    folder = tmp_path_factory.mktemp("people")
    write_run_file(RUN, folder / "bundled" / "people.json")
    secret = rate_secret({}, folder)  # the page reads the secret kept beside its store: the test predicts its queue
    with served_runs(folder) as url:
        yield url, secret


def _rows(table) -> list[list[str]]:  # noqa: ANN001
    """A dataframe's body rows as text (its grid keeps an accessible copy of the cells beside the canvas)."""
    expect(table.locator("tbody tr").first).to_be_attached()
    return [row.locator("td").all_inner_texts() for row in table.locator("tbody tr").all()]


def test_a_person_rates_blind_pairs_and_replies_and_reads_what_people_said(chromium, people_url):  # noqa: ANN001
    people_url, secret = people_url
    with new_tab(chromium) as page:
        open_app(page, people_url, "rate")
        enter_rater_name(page, "ana")
        # 8 c0-c1 pairs, 7 c0-c2 and 7 c1-c2 (c2 has no reply to the first case): 22, in the page's own order.
        pairs = rating_queue(RUN, typed_rater("ana"), "pairwise", secret=secret)
        expect(page.get_by_text(f"0 of {len(pairs)} rated")).to_be_visible()
        assert len(pairs) == 22
        settled(page)
        screenshot(page, "rate-pair")
        for i, item in enumerate(pairs):  # ana always prefers the contender listed first: c0 > c1 > c2
            earlier = min(item.shown, key=ORDER.index)
            page.get_by_role("button", name="A better (1)" if item.shown[0] == earlier else "B better (2)").click()
            expect(page.get_by_text(f"{i + 1} of 22 rated")).to_be_visible()
            settled(page)
        page.get_by_text("One reply, blind").click()
        singles = rating_queue(RUN, typed_rater("ana"), "single", secret=secret)
        assert [i.shown[0] for i in singles[:6]] == ORDER * 2  # each contender in turn
        expect(page.get_by_text(f"0 of {len(singles)} rated")).to_be_visible()
        for i, verdict in enumerate(["Pass (1)"] * 3 + ["Fail (2)"] * 3):  # each contender: one pass, one fail
            page.get_by_role("button", name=verdict).click()
            expect(page.get_by_text(f"{i + 1} of {len(singles)} rated")).to_be_visible()
            settled(page)

        open_app(page, people_url)
        expect(page.get_by_text("Ranked by judge_score corrected by people (6 rated replies")).to_be_visible()
        page.get_by_text("People: ratings, agreement and the judge corrected").click()
        expect(page.get_by_text("28 ratings by 1 rater.")).to_be_visible()
        # The pairwise judge said a (c0 over c1) on the 8 c0-c1 pairs and tie on the 14 others; ana said a on all 22:
        # they agree on 8 of 22 = 36.4%; kappa = (8/22 - 8/22 · 22/22) / (1 - 8/22) = 0.
        judged = page.get_by_text("pairwise judge vs people: 22 items, accuracy 36.4%")
        expect(judged).to_be_visible()
        assert ", kappa 0.00 [" in judged.inner_text()
        # The judge passes every reply (1 ≥ 0.5); ana passed 3 of 6: accuracy 50.0%.
        expect(page.get_by_text("judge (judge_score) vs people: 6 items, accuracy 50.0%")).to_be_visible()
        panel = page.get_by_test_id("stExpander").filter(has_text="People: ratings")
        tables = panel.get_by_test_id("stDataFrame")
        expect(tables).to_have_count(3)
        # Wins: c0 15 of 15, c1 7 of 15, c2 0 of 14 (percent; the grid's text holds the unformatted values).
        wins = {row[0]: row[1:] for row in _rows(tables.nth(0))}
        assert [(float(wins[c][0]), wins[c][3], wins[c][4]) for c in ORDER] == [
            (100.0, "15", "0"), (pytest.approx(700 / 15), "7", "8"), (0.0, "0", "14")
        ]  # fmt: skip
        assert [row[1] for row in _rows(tables.nth(1))] == ORDER  # rank, contender: the Bradley-Terry ranking
        # Corrected, each contender: the judge said 1 everywhere, ana 1 and 0 on two replies: 1 + mean(0, -1) = 0.5,
        # ± 1.96 · sqrt(var(0, -1) / 2) = 1.96 · 0.35355 = 0.69296, clipped to [0, 1]; the judge's own interval is the
        # leaderboard's for n of n cases judged 1, Clopper-Pearson's [0.025^(1/n), 1].
        half = 1.959964 * (0.25 / 2) ** 0.5
        corrected = {row[0]: [float(x) for x in row[1:]] for row in _rows(tables.nth(2))}
        scored = {ORDER[0]: 8, ORDER[1]: 8, ORDER[2]: 7}  # 2 of each rated
        for contender, values in corrected.items():
            n = scored[contender]
            expected = [1, 0.025 ** (1 / n), 1, 0.5, max(0.5 - half, 0), min(0.5 + half, 1), 0.5, 2, n - 2]
            assert values == pytest.approx(expected, abs=1e-4)
        panel.scroll_into_view_if_needed()
        screenshot(page, "people-panel")
