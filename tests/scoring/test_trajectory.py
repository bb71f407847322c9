"""The trajectory scorer on hand-made traces: order rules, recall and precision, path costs, no trace."""

from __future__ import annotations

import pytest

from evalcore.core.errors import ConfigError
from evalcore.core.records import Case
from evalcore.scoring.adapters import Context, Parsed
from evalcore.scoring.plugins import build_scorer
from evalcore.scoring.trajectory import NoTrace, TrajectoryScorer
from evalcore.suite.config import ScorerRef

CONTEXT = Context("", ())
LOOKUP = {"name": "lookup_order", "arguments": {"order_id": "A17"}}
REFUND = {"name": "refund", "arguments": {"order_id": "A17", "amount": 20}}
EMAIL = {"name": "send_email", "arguments": {"to": "ann@example.com"}}


def model(index, **fields):
    return {"kind": "model", "index": index, "latency_s": 0.4, "input_tokens": 800, "output_tokens": 40,
            "cost_usd": 0.0001, "content": None, "tool_calls": []} | fields  # fmt: skip


def tool(index, call, **fields):
    step = {"kind": "tool", "index": index, "call_id": f"call_{index}", "name": call["name"],
            "arguments": call["arguments"], "result": "ok", "error": None, "bytes": 100, "sent_bytes": 100,
            "latency_s": 0.002}  # fmt: skip
    return step | fields


def trace_of(*calls):
    """A trace of one model turn per call, each followed by its tool step, then the final answer's turn."""
    steps = []
    for call in calls:
        steps += [model(len(steps)), tool(len(steps) + 1, call)]
    return steps + [model(len(steps), content="Done.")]


def score(actions, trace, order=None, **options):
    expected = {"actions": actions} | ({"order": order} if order else {})
    case = Case("agent", "c1", "v", "Refund order A17", expected)
    return TrajectoryScorer(**options).score(case, Parsed(output="Done.", trace=trace), CONTEXT)


def test_the_expected_actions_in_order_score_one_on_every_path_metric():
    scored = score([LOOKUP, REFUND], trace_of(LOOKUP, REFUND))
    assert scored.metrics["order_correct"] == 1.0
    assert scored.metrics["action_recall"] == 1.0 and scored.metrics["action_precision"] == 1.0
    assert scored.metrics["extra_calls"] == 0.0 and scored.metrics["tool_errors"] == 0.0


def test_strict_order_fails_when_the_actions_are_swapped_but_recall_and_precision_stay_one():
    scored = score([LOOKUP, REFUND], trace_of(REFUND, LOOKUP))
    assert scored.metrics["order_correct"] == 0.0
    assert scored.metrics["action_recall"] == 1.0 and scored.metrics["action_precision"] == 1.0
    assert scored.diagnostics["actions"] == {"want": ["lookup_order", "refund"], "got": ["refund", "lookup_order"]}


def test_any_order_accepts_the_expected_actions_swapped():
    assert score([LOOKUP, REFUND], trace_of(REFUND, LOOKUP), "any_order").metrics["order_correct"] == 1.0


def test_any_order_refuses_an_extra_action():
    scored = score([LOOKUP], trace_of(LOOKUP, EMAIL), "any_order")
    assert scored.metrics["order_correct"] == 0.0 and scored.metrics["extra_calls"] == 1.0
    assert scored.metrics["action_precision"] == 0.5 and scored.diagnostics["unexpected"] == ["send_email"]


def test_subset_accepts_only_expected_actions_with_some_left_out():
    assert score([LOOKUP, REFUND], trace_of(LOOKUP), "subset").metrics["order_correct"] == 1.0
    assert score([LOOKUP, REFUND], trace_of(LOOKUP, EMAIL), "subset").metrics["order_correct"] == 0.0


def test_superset_accepts_other_calls_between_the_expected_ones_in_their_order():
    assert score([LOOKUP, REFUND], trace_of(LOOKUP, EMAIL, REFUND), "superset").metrics["order_correct"] == 1.0
    assert score([LOOKUP, REFUND], trace_of(REFUND, EMAIL, LOOKUP), "superset").metrics["order_correct"] == 0.0


def test_a_missed_action_lowers_recall_and_is_named():
    scored = score([LOOKUP, REFUND], trace_of(LOOKUP))
    assert scored.metrics["action_recall"] == 0.5 and scored.metrics["order_correct"] == 0.0
    assert scored.diagnostics["missed"] == ["refund"]


def test_an_action_with_a_wrong_argument_does_not_match():
    wrong = {"name": "refund", "arguments": {"order_id": "A17", "amount": 200}}
    scored = score([LOOKUP, REFUND], trace_of(LOOKUP, wrong))
    assert scored.metrics["action_recall"] == 0.5 and scored.metrics["extra_calls"] == 1.0


def test_an_action_may_take_any_of_several_acceptable_values():
    flexible = {"name": "refund", "arguments": {"order_id": ["A17", "a-17"], "amount": {"optional": True}}}
    taken = {"name": "refund", "arguments": {"order_id": "a-17"}}
    assert score([flexible], trace_of(taken)).metrics["order_correct"] == 1.0


def test_arguments_that_did_not_parse_do_not_match():
    raw = {"name": "lookup_order", "arguments": '{"order_id": "A1'}
    assert score([LOOKUP], trace_of(raw)).metrics["action_recall"] == 0.0


def test_an_empty_trace_is_scored_as_no_actions():
    scored = score([LOOKUP], [])
    assert scored.metrics["order_correct"] == 0.0 and scored.metrics["action_recall"] == 0.0
    assert scored.metrics["action_precision"] is None and scored.metrics["tool_errors"] is None
    assert scored.metrics["steps"] == 0.0 and scored.diagnostics["steps"] == 0


def test_no_expected_action_and_none_taken_is_right():
    scored = score([], [model(0, content="No tool needed.")])
    assert scored.metrics["order_correct"] == 1.0 and scored.metrics["action_recall"] is None


def test_no_trace_is_not_scored_but_an_error_of_its_own_kind():
    case = Case("agent", "c1", "v", "Refund order A17", {"actions": [LOOKUP]})
    with pytest.raises(NoTrace) as caught:
        TrajectoryScorer().score(case, Parsed(output="Done."), CONTEXT)
    assert caught.value.kind == "no_trace" and "agent/c1" in caught.value.message


def test_steps_count_model_turns_as_a_share_of_the_step_budget():
    scored = score([LOOKUP, REFUND], trace_of(LOOKUP, REFUND), max_steps=6)
    assert scored.diagnostics["steps"] == 3 and scored.metrics["steps"] == pytest.approx(3 / 6)
    assert score([LOOKUP], trace_of(LOOKUP, LOOKUP, LOOKUP), max_steps=2).metrics["steps"] == 1.0


def test_a_trace_of_tool_steps_only_counts_its_calls_as_steps():
    scored = score([LOOKUP], [tool(0, LOOKUP), tool(1, REFUND)], max_steps=4)
    assert scored.diagnostics["steps"] == 2 and scored.metrics["steps"] == 0.5


def test_tool_errors_are_the_share_of_calls_that_failed():
    trace = [model(0), tool(1, LOOKUP, error="timeout", result=None), tool(2, LOOKUP), model(3)]
    scored = score([LOOKUP], trace)
    assert scored.metrics["tool_errors"] == 0.5 and scored.diagnostics["tool_errors"] == 1


def test_tool_result_bytes_are_the_full_size_as_a_share_of_the_byte_budget():
    trace = [model(0), tool(1, LOOKUP, bytes=400_000, sent_bytes=8_000), model(2)]
    scored = score([LOOKUP], trace, max_result_bytes=1_000_000)
    assert scored.metrics["tool_result_bytes"] == 0.4 and scored.diagnostics["tool_result_bytes"] == 400_000
    assert score([LOOKUP], trace).metrics["tool_result_bytes"] == 1.0


def test_unknown_result_sizes_leave_tool_result_bytes_unset():
    assert score([LOOKUP], [tool(0, LOOKUP, bytes=None)]).metrics["tool_result_bytes"] is None


def test_the_scorer_option_order_applies_when_the_case_gives_none():
    case = Case("agent", "c1", "v", "x", {"actions": [LOOKUP, REFUND]})
    scorer = TrajectoryScorer(order="any_order")
    assert scorer.score(case, Parsed("x", trace=trace_of(REFUND, LOOKUP)), CONTEXT).metrics["order_correct"] == 1.0


@pytest.mark.parametrize(
    ("expected", "message"),
    [
        ([LOOKUP], "a trajectory's answer is an object with `actions`"),
        ({"actions": [LOOKUP], "order": "sorted"}, "'sorted' is not an order rule"),
        ({"actions": [{"name": "refund", "args": {}}]}, "'args': unknown key"),
    ],
)
def test_a_malformed_expected_answer_is_named_by_check_case(expected, message):
    problem = TrajectoryScorer().check_case(Case("agent", "c1", "v", "x", expected, source="cases/c1.yaml"))
    assert problem is not None and problem.startswith("cases/c1.yaml") and message in problem


def test_a_bad_option_is_a_config_error():
    with pytest.raises(ConfigError, match="options.order: 'random' is not an order rule"):
        TrajectoryScorer(order="random")
    with pytest.raises(ConfigError, match="options.max_steps: a whole number"):
        TrajectoryScorer(max_steps=0)


def test_the_perfect_trace_scores_one():
    flexible = {"name": "refund", "arguments": {"order_id": ["A17", "a-17"], "amount": {"optional": True}}}
    case = Case("agent", "c1", "v", "x", {"actions": [LOOKUP, flexible]})
    scorer = TrajectoryScorer()
    perfect = scorer.perfect_trace(case)
    assert [(s["name"], s["arguments"]) for s in perfect] == [
        ("lookup_order", {"order_id": "A17"}),
        ("refund", {"order_id": "A17"}),
    ]
    assert scorer.score(case, Parsed("x", trace=perfect), CONTEXT).metrics["order_correct"] == 1.0


def test_trajectory_is_a_built_in_scorer_beside_an_answer_scorer():
    scorers = build_scorer([ScorerRef(name="trajectory"), ScorerRef(name="non_empty")], ".")
    case = Case("agent", "c1", "v", "x", {"actions": [LOOKUP]})
    scored = scorers.score(case, Parsed("Refunded.", trace=trace_of(LOOKUP)), CONTEXT)
    assert scored.metrics["order_correct"] == 1.0 and scored.metrics["non_empty"] == 1.0
    assert scorers.perfect_trace(case) == TrajectoryScorer().perfect_trace(case)


def test_the_model_turns_tokens_are_a_share_of_the_token_budget():
    scored = score([LOOKUP], trace_of(LOOKUP), max_tokens=10_000)  # two turns of 800 in and 40 out
    assert scored.metrics["tokens"] == pytest.approx(0.168) and scored.diagnostics["tokens"] == 1680
    assert score([LOOKUP], trace_of(LOOKUP), max_tokens=1_000).metrics["tokens"] == 1.0


def test_a_trace_whose_turns_count_no_tokens_leaves_tokens_unset():
    scored = score([LOOKUP], [tool(0, LOOKUP)])
    assert scored.metrics["tokens"] is None and "tokens" not in scored.diagnostics
