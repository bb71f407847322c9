"""What keeps the Rate page blind: a per-deployment secret behind each rater's queue and sides, and names shown
only once the queue is done unless the deployment asks for them after each vote."""

import stat

import pytest

from evalcore.core.errors import EvalcoreError
from evalcore.explorer.blinding import rate_secret, reveal, reveal_rows, reveal_setting
from evalcore.explorer.rating import rating_queue
from tests.factories import make_run

RUN = make_run(4, 6, with_errors=False)


def test_the_sides_cannot_be_computed_from_the_run_and_the_raters_name_without_the_secret():
    ours = rating_queue(RUN, "ana", "pairwise", secret="deployment-one")
    assert ours == rating_queue(RUN, "ana", "pairwise", secret="deployment-one")
    assert [i.shown for i in ours] != [i.shown for i in rating_queue(RUN, "ana", "pairwise")]
    assert [i.shown for i in ours] != [i.shown for i in rating_queue(RUN, "ana", "pairwise", secret="another")]


def test_a_secret_is_created_once_beside_the_store_readable_by_its_owner_only(tmp_path):
    first = rate_secret({}, tmp_path)
    assert len(first) == 64 and rate_secret({}, tmp_path) == first
    assert stat.S_IMODE((tmp_path / "rate-secret").stat().st_mode) == 0o600
    assert rate_secret({}, tmp_path / "other") != first


def test_the_deployments_variable_is_the_secret_and_no_file_is_made(tmp_path):
    assert rate_secret({"EVALCORE_RATE_SECRET": " s3cret "}, tmp_path) == "s3cret"
    assert not (tmp_path / "rate-secret").exists()


def test_names_are_revealed_at_the_end_unless_the_deployment_asks_for_each_vote():
    assert reveal_setting({}) == "end"
    assert reveal_setting({"EVALCORE_RATE_REVEAL": "Each"}) == "each"
    with pytest.raises(EvalcoreError, match=r"EVALCORE_RATE_REVEAL='always': give one of \['end', 'each'\]"):
        reveal_setting({"EVALCORE_RATE_REVEAL": "always"})


def test_a_single_reply_is_revealed_as_the_reply_not_as_side_a():
    pair = rating_queue(RUN, "ana", "pairwise", secret="s")[0]
    single = rating_queue(RUN, "ana", "single", secret="s")[0]
    assert reveal(pair) == f"A was {pair.shown[0]}, B was {pair.shown[1]}"
    assert reveal(single) == f"the reply was {single.shown[0]}'s"
    assert reveal_rows([single], "single") == [
        {"case": f"{single.dataset}/{single.case}", "sample": single.sample, "reply": single.shown[0]}
    ]
