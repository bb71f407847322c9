"""``evalcore cases``: every case of a suite, or the messages a case is asked with; calls nothing."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from evalcore.analysis.scores.formats import plural
from evalcore.cli._shared import (
    add_selection,
    add_suite,
    plan_of,
    print_messages,
    print_refused,
    table,
)

if TYPE_CHECKING:
    from evalcore.execution.plan import Plan


def add_cases(p: argparse.ArgumentParser) -> None:
    add_suite(p)
    add_selection(p)
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument(
        "--show-prompt",
        metavar="CASE_ID",
        help="print the messages sent for this case (DATASET/ID or ID): per prompt of the lineup or -p",
    )


def cmd_cases(args: argparse.Namespace) -> int:
    plan = plan_of(args)
    if args.show_prompt:
        return _show_prompt(plan, args.show_prompt, args.format)
    rows = [[c.dataset, c.variant, c.id, _words(c.input), _expected_summary(c.expected)] for c in plan.cases]
    if args.format == "json":
        print(
            json.dumps(
                [dict(zip(["dataset", "variant", "id", "words", "expected"], r, strict=True)) for r in rows], indent=1
            )
        )
        return 0
    print(table(rows, ["dataset", "variant", "id", "words", "expected"]))
    print(f"\n{plural(len(rows), 'case')} in {plural(len({r[0] for r in rows}), 'dataset')}")
    print_refused(plan)
    return 0


def _show_prompt(plan: Plan, wanted: str, form: str) -> int:
    """Print the rendered messages of one case, for each prompt the plan's contenders use."""
    from evalcore.core.errors import ConfigError
    from evalcore.execution.plan import case_messages

    found = [c for c in plan.cases if wanted in (c.id, f"{c.dataset}/{c.id}")]
    if len(found) != 1:
        some = ", ".join(f"{c.dataset}/{c.id}" for c in (found or plan.cases)[:5])
        problem = "is in several datasets; name one as DATASET/ID" if found else "matches no selected case"
        raise ConfigError(f"--show-prompt {wanted!r}: {problem} (e.g. {some}). `evalcore cases` lists them.")
    case = found[0]
    by_prompt = case_messages(plan, case)
    if form == "json":
        shown = [
            {"prompt": name, "dataset": case.dataset, "case": case.id, "messages": m} for name, m in by_prompt.items()
        ]
        print(json.dumps(shown, indent=1, ensure_ascii=False))
        return 0
    for name, messages in by_prompt.items():
        source = (
            f"prompt={name} ({plan.suite.prompts[name].path})"
            if name
            else f"the {plan.suite.adapter_ref.name} adapter's own messages"
        )
        print_messages(f"{case.dataset}/{case.id} · {source}", messages)
    return 0


def _words(value: Any) -> int:
    from evalcore.core.images import input_text

    return len(input_text(value).split())  # an input's text: its images' references are no words


def _expected_summary(expected: Any) -> str:
    if isinstance(expected, dict):
        known = sum(v is not None for v in expected.values())
        return f"{known}/{len(expected)} fields set"
    text = json.dumps(expected, ensure_ascii=False)
    return text if len(text) <= 40 else text[:39] + "…"


COMMANDS = {
    "cases": (
        add_cases,
        cmd_cases,
        "list every case: dataset, variant, id, words, expected (--show-prompt ID: its messages); calls nothing",
        "evalcore cases data/suites/intake -d roofing",
    ),
}
