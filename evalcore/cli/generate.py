"""``evalcore generate``: new cases proposed by a model, queued for a person (docs/generate.md).

- ``evalcore generate SUITE --dataset NAME --from docs|personas|failures``: propose cases; they are stored as
  pending proposals, never written to the dataset (:func:`evalcore.execution.generate.generate_cases`).
- ``evalcore generate review``: list the pending proposals; ``--accept ID`` writes one to its dataset's files,
  ``--reject ID`` marks it rejected (:mod:`evalcore.execution.review`).

Exit 0 when every writer call gave a usable reply (or the decisions were recorded), 1 when a writer call failed
or the ``--max-cost`` cap stopped the batch (what passed the filters is queued all the same), 2 on a user error.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
from typing import TYPE_CHECKING

from evalcore.cli._shared import SUITE_HELP, add_db, open_store, suite_folder, table

if TYPE_CHECKING:
    from evalcore.execution.generate import GenerateReport
    from evalcore.storage.proposals import Proposal


def add_generate(p: argparse.ArgumentParser) -> None:
    p.add_argument("what", nargs="?", metavar="SUITE | review", help=f"{SUITE_HELP}; or review (the queue)")
    p.add_argument("--dataset", help="the dataset to propose cases for (required to propose)")
    p.add_argument(
        "--from", dest="source", choices=["docs", "personas", "failures"],
        help="docs: the suite's generate.documents folder; personas: its generate.personas and scenarios; "
        "failures: cases where contenders failed or disagreed in a stored run",
    )  # fmt: skip
    p.add_argument("--run", help="--from failures: the stored run (default: the suite's newest)")
    p.add_argument("--count", type=int, default=5, help="how many cases to ask for (default 5)")
    p.add_argument("--model", help="the writer model (default: the suite's generate.model, else fake/writer)")
    p.add_argument("--seed", type=int, default=0, help="draws the sources and examples, and is sent to the writer")
    p.add_argument("--max-cost", type=float, metavar="USD", help="a budget cap for the writer's calls")
    p.add_argument("--accept", action="append", default=[], metavar="ID", help="review: write this proposal to "
                   "its dataset's files (repeatable)")  # fmt: skip
    p.add_argument("--reject", action="append", default=[], metavar="ID", help="review: reject it (repeatable)")
    p.add_argument("--why", default="", help="review: why the proposals are rejected (kept with them)")
    p.add_argument("--reviewer", help="review: who decides (default: $USER)")
    p.add_argument("--format", choices=["table", "json"], default="table")
    add_db(p)


def cmd_generate(args: argparse.Namespace) -> int:
    if args.what == "review":
        return _review(args)
    return _propose(args)


def _propose(args: argparse.Namespace) -> int:
    from evalcore.core.errors import ConfigError
    from evalcore.execution.generate import GenerateOptions, generate_cases
    from evalcore.suite.loader import load_suite

    if args.accept or args.reject:
        raise ConfigError("--accept and --reject go with evalcore generate review")
    if not args.dataset or not args.source:
        raise ConfigError("evalcore generate SUITE: give --dataset NAME and --from docs|personas|failures")
    if args.max_cost is not None and args.max_cost <= 0:
        raise ConfigError(f"--max-cost {args.max_cost}: give a positive number of USD")
    suite = load_suite(suite_folder(args.what))
    options = GenerateOptions(args.dataset, args.source, args.count, args.model, args.seed, args.max_cost, args.run)
    report = generate_cases(suite, open_store(args, create=True), options)
    if args.format == "json":
        print(json.dumps(_report_data(report), indent=1, ensure_ascii=False))
    else:
        print("\n".join(report_lines(report)))
    return 0 if report.ok else 1


def report_lines(report: GenerateReport) -> list[str]:
    """What ``evalcore generate`` prints."""
    reasons: dict[str, int] = {}
    for what, _ in report.dropped:
        reasons[what] = reasons.get(what, 0) + 1
    why = ", ".join(f"{n} {what}" for what, n in reasons.items())
    lines = [f"asked for {report.asked} cases; the writer wrote {report.written}; dropped {len(report.dropped)}"
             + (f" ({why})" if why else "")]  # fmt: skip
    lines += [f"  dropped, {what}: {detail}" for what, detail in report.dropped]
    lines += [f"  skipped {line}" for line in report.skipped]
    lines += [f"  writer call failed: {line}" for line in report.failed_calls]
    if report.stopped_by_budget:
        lines.append(f"stopped by the budget cap: spent ${report.spent_usd:.6f}")
    elif report.spent_usd:
        lines.append(f"spent ${report.spent_usd:.6f}")
    lines.append(f"queued {len(report.stored)} for review; nothing was written to the dataset's files")
    if report.stored:
        lines.append(table(_rows(report.stored), _HEADER))
        lines.append("accept or reject each: evalcore generate review --accept ID / --reject ID, or on the app's "
                     "Rate page (Review proposed cases)")  # fmt: skip
    return lines


def _report_data(report: GenerateReport) -> dict:
    return {
        "asked": report.asked, "written": report.written,
        "dropped": [{"reason": what, "detail": detail} for what, detail in report.dropped],
        "skipped": report.skipped, "failed_calls": report.failed_calls, "spent_usd": report.spent_usd,
        "stopped_by_budget": report.stopped_by_budget, "queued": [p.id for p in report.stored],
    }  # fmt: skip


_HEADER = ["id", "dataset", "from", "origin", "input", "expected"]


def _rows(proposals: list[Proposal]) -> list[list[str]]:
    return [[p.id, p.dataset, p.source, _tail(p.origin, 30), _short(p.case.get("input"), 50),
             _short(p.case.get("expected"), 30)] for p in proposals]  # fmt: skip


def _tail(text: str, width: int) -> str:
    """The end of ``text`` (a run's case: the case id is at its end)."""
    return text if len(text) <= width else "…" + text[-(width - 1) :]


def _short(value: object, width: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _review(args: argparse.Namespace) -> int:
    from evalcore.execution.review import accept_proposal, reject_proposal
    from evalcore.storage.proposals import PENDING, load_proposals

    store = open_store(args)
    who = args.reviewer or os.environ.get("USER") or getpass.getuser()
    for ref in args.accept:
        done = accept_proposal(store, ref, who)
        print(f"accepted {ref}: case {done.case_id} written to {done.path}; the suite's definition fingerprint "
              f"changed from {done.fingerprint_before} to {done.fingerprint_after}")  # fmt: skip
    for ref in args.reject:
        reject_proposal(store, ref, who, args.why)
        print(f"rejected {ref}")
    if args.accept or args.reject:
        return 0
    pending = load_proposals(store, dataset=args.dataset, status=PENDING)
    if args.format == "json":
        print(json.dumps([p.__dict__ for p in pending], indent=1, ensure_ascii=False))
    elif not pending:
        print("no proposal waits for review (evalcore generate SUITE --dataset NAME --from docs proposes some)")
    else:
        print(table(_rows(pending), _HEADER))
    return 0


COMMANDS = {
    "generate": (
        add_generate,
        cmd_generate,
        "propose new cases from documents, personas or failures; a person accepts them into the dataset (review)",
        "evalcore generate docs/examples/policies --dataset questions --from docs --count 5",
    ),
}
