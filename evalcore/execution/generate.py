"""``evalcore generate``: a model proposes new cases for a dataset; they wait in the store for a person.

Where the cases are written from (``--from``):

- ``docs``: the ``.txt`` and ``.md`` files of the folder the suite's ``generate.documents`` names (a ``.pdf`` is
  skipped and said: no PDF text extractor is installed with evalcore);
- ``personas``: the suite's ``generate.personas`` and ``generate.scenarios``;
- ``failures``: the cases of a stored run where a contender failed or the contenders disagreed ("more like
  these"): the widest spread of scores first, then the lowest.

One writer call per source item (in an order the seed draws) asks for a share of ``--count`` cases in the
dataset's own form, shown by examples of its cases (fields, labels, tool calls as they are). Each reply's cases
then pass two filters, and what each drops is counted with why:

1. a case whose input is a near-duplicate (:mod:`evalcore.suite.duplicates`) of the dataset's cases, of a
   proposal stored before (pending, accepted or rejected) or of one proposed earlier in the batch;
2. a case the dataset's own checks refuse (:class:`~evalcore.execution.verify.CaseCheck`, what ``evalcore
   verify`` runs), or that is not a case at all.

What passes is stored as pending proposals (:mod:`evalcore.storage.proposals`) with the writer's model,
settings, seed and prompt; nothing is written to the dataset's files. A failed writer call (after its retries)
or an unusable reply is counted and the next item is asked; a ``--max-cost`` cap meters every call
(:mod:`evalcore.models.metering`) and stops the batch before a call that would pass it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalcore.core.errors import CallFailed, ConfigError, EvalcoreError
from evalcore.core.records import Case, Contender, Run
from evalcore.execution.budget import Budget
from evalcore.execution.estimate import prices_of
from evalcore.execution.judge_calls import suite_prices
from evalcore.execution.verify import CaseCheck
from evalcore.models.metering import Meter, OverBudget, metering
from evalcore.models.registry import get_provider
from evalcore.models.types import Reply, Request
from evalcore.storage.proposals import Proposal, add_proposals, load_proposals, proposal_id
from evalcore.suite.cases import case_from_mapping
from evalcore.suite.duplicates import THRESHOLD, Seen
from evalcore.suite.loader import Suite

log = logging.getLogger(__name__)

SOURCES = ("docs", "personas", "failures")
#: The document files read, by suffix; a PDF is named as skipped (no text extractor is installed).
TEXT_SUFFIXES = (".txt", ".md", ".markdown")
#: Characters of one document sent to the writer (a longer one is cut, and the cut said).
MAX_DOCUMENT_CHARS = 12_000
#: Existing cases shown to the writer as the dataset's form.
EXAMPLES = 2
_FORM = '{"cases": [...]}'
SYSTEM = (
    "You write new test cases for an evaluation dataset. Each case has an input (what the system under test "
    "receives) and the expected answer, in exactly the form of the examples: the same keys, types and labels. "
    "Write only what the source supports. Answer with JSON only."
)


@dataclass(frozen=True)
class SourceItem:
    """One thing a writer call writes cases from."""

    #: What it is called in a proposal's ``origin``: a file name, ``persona NAME``, ``scenario N``, ``RUN:CASE``.
    origin: str
    text: str


@dataclass
class GenerateOptions:
    """What ``evalcore generate`` was asked."""

    dataset: str
    source: str
    count: int = 5
    #: The writer model; None: the suite's ``generate.model``.
    model: str | None = None
    seed: int = 0
    #: A budget cap in USD for the writer's calls; None: none.
    max_cost: float | None = None
    #: A stored run (``--from failures``); None: the newest run of the suite.
    run: str | None = None


@dataclass
class GenerateReport:
    """What a batch did."""

    asked: int
    #: Cases the writer wrote, filters not applied.
    written: int = 0
    stored: list[Proposal] = field(default_factory=list)
    #: (what, why) for each dropped case: ``near-duplicate`` or ``failed checks`` and the detail.
    dropped: list[tuple[str, str]] = field(default_factory=list)
    #: Writer calls that gave no usable reply, each with why.
    failed_calls: list[str] = field(default_factory=list)
    #: Source files not read, each with why.
    skipped: list[str] = field(default_factory=list)
    #: What the writer's replies cost (as their usage says).
    spent_usd: float = 0.0
    stopped_by_budget: bool = False

    @property
    def ok(self) -> bool:
        """Every writer call gave a usable reply and the cap did not stop the batch."""
        return not self.failed_calls and not self.stopped_by_budget


def generate_cases(suite: Suite, store: Any, options: GenerateOptions) -> GenerateReport:
    """Ask the writer for new cases of ``options.dataset``, filter them and store the rest as pending proposals.

    Raises:
        ConfigError: an unknown dataset or source, a source with nothing to write from, a writer model that
            cannot be asked or priced under a cap.
    """
    dataset = _dataset(suite, options.dataset)
    if options.count < 1:
        raise ConfigError(f"--count {options.count}: give a number of cases from 1")
    report = GenerateReport(asked=options.count)
    items = source_items(suite, dataset, options, store, report)
    writer = _writer(suite, options)
    random.Random(options.seed).shuffle(items)
    seen = Seen([(f"{dataset}/{c.id}", c.input) for c in suite.datasets[dataset].cases])
    for p in load_proposals(store, suite=suite.name, dataset=dataset):
        seen.add(f"proposal {p.id} ({p.status})", p.case.get("input"))
    check = CaseCheck(suite)
    budget = Budget(options.max_cost, {}) if options.max_cost is not None else None
    meter = Meter(budget, prices_of) if budget is not None else None
    proposals: list[Proposal] = []
    per_item = math.ceil(options.count / len(items))
    for item in items:
        wanted = min(per_item, options.count - len(proposals))
        if wanted <= 0:
            break
        messages = writer_messages(suite, dataset, item, wanted, options.seed)
        try:
            with metering(meter):
                reply = asyncio.run(_ask(writer, messages, suite))
        except OverBudget as exc:
            report.stopped_by_budget = True
            report.failed_calls.append(f"{item.origin}: {exc}")
            break
        except CallFailed as exc:
            report.failed_calls.append(f"{item.origin}: {exc.kind}: {exc}")
            continue
        report.spent_usd += reply.usage.cost_usd or 0.0
        cases = _reply_cases(reply.text)
        if cases is None:
            report.failed_calls.append(f"{item.origin}: the writer's reply is not JSON of the form {_FORM}")
            continue
        report.written += len(cases)
        generator = {"model": writer.model, "settings": writer.settings, "seed": options.seed, "prompt": messages}
        for raw in cases:
            kept = _kept(raw, suite, dataset, (options.source, item), generator, seen, check, report)
            if kept is not None:
                proposals.append(kept)
    report.stored = add_proposals(store, proposals)
    return report


def _dataset(suite: Suite, name: str) -> str:
    if name not in suite.datasets:
        raise ConfigError(f"--dataset {name!r}: no such dataset in suite {suite.name}; its datasets: "
                          f"{', '.join(suite.datasets)}")  # fmt: skip
    return name


def source_items(
    suite: Suite, dataset: str, options: GenerateOptions, store: Any, report: GenerateReport
) -> list[SourceItem]:
    """What the writer calls write from, for ``options.source`` (see the module); skipped files go to ``report``.

    Raises:
        ConfigError: an unknown source, or one with nothing in it, saying what to add to the suite.
    """
    config, where = suite.config.generate, suite.path / "evalcore.yaml"
    if options.source == "docs":
        if config.documents is None:
            raise ConfigError(f"{where}: generate.documents: not set; name a folder of .txt or .md files, e.g. "
                              "generate: {documents: docs/}")  # fmt: skip
        items = _documents(suite.path / config.documents, report)
    elif options.source == "personas":
        items = [SourceItem(f"persona {p.name}", f"A person who writes to the system: {p.name}. {p.description}")
                 for p in config.personas]  # fmt: skip
        items += [SourceItem(f"scenario {i + 1}", s) for i, s in enumerate(config.scenarios)]
        if not items:
            raise ConfigError(f"{where}: generate: no personas or scenarios; add generate.personas "
                              "([{name, description}]) or generate.scenarios ([text])")  # fmt: skip
    elif options.source == "failures":
        items = _failures(suite, dataset, store, options.run, options.count)
    else:
        raise ConfigError(f"--from {options.source!r}: give one of {', '.join(SOURCES)}")
    if not items:
        raise ConfigError(f"--from {options.source}: nothing to write cases from for dataset {dataset}")
    return items


def _documents(folder: Path, report: GenerateReport) -> list[SourceItem]:
    if not folder.is_dir():
        raise ConfigError(f"{folder}: generate.documents names no folder; create it or fix the path")
    items = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        name = str(path.relative_to(folder))
        if path.suffix.lower() == ".pdf":
            report.skipped.append(f"{name}: PDF is not supported (no PDF text extractor is installed); save its "
                                  "text as .txt or .md")  # fmt: skip
            continue
        if path.suffix.lower() not in TEXT_SUFFIXES:
            report.skipped.append(f"{name}: not a .txt or .md file")
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            report.skipped.append(f"{name}: not UTF-8 text (byte {exc.start})")
            continue
        if len(text) > MAX_DOCUMENT_CHARS:
            report.skipped.append(f"{name}: only its first {MAX_DOCUMENT_CHARS} characters were sent")
        if text.strip():
            items.append(SourceItem(name, text[:MAX_DOCUMENT_CHARS]))
    return items


def _failures(suite: Suite, dataset: str, store: Any, ref: str | None, count: int) -> list[SourceItem]:
    """The run's cases of ``dataset`` where a contender failed or the contenders disagreed, worst first."""
    run_id = store.resolve_run_id(ref) if ref else _newest_run(store, suite.name)
    run = store.load_run(run_id)
    if run.info.suite != suite.name:
        raise ConfigError(f"--run {ref}: run {run_id} is of suite {run.info.suite}, not {suite.name}; give a run of it")
    return [SourceItem(f"{run_id}:{case.id}", _case_text(case)) for case in failing_cases(run, dataset)[:count]]


def _newest_run(store: Any, suite: str) -> str:
    runs = [r for r in store.list_runs() if r.get("suite") == suite]
    if not runs:
        raise ConfigError(f"no stored run of suite {suite} to find failures in: run it first, or give --run RUN")
    return str(max(runs, key=lambda r: str(r.get("created_at")))["id"])


def failing_cases(run: Run, dataset: str) -> list[Case]:
    """The cases of ``dataset`` where some contender erred or scored below 1, or the contenders' scores differ:
    the widest spread first, then the lowest mean score."""
    scores: dict[str, list[float]] = {}
    for r in run.results:
        if r.dataset == dataset:
            scores.setdefault(r.case, []).append(0.0 if r.status == "error" or r.score is None else float(r.score))
    ranked = []
    for case in run.cases:
        got = scores.get(case.id)
        if case.dataset == dataset and got and (min(got) < 1.0 or max(got) > min(got)):
            ranked.append((-(max(got) - min(got)), sum(got) / len(got), case.id, case))
    return [entry[-1] for entry in sorted(ranked, key=lambda e: e[:3])]


def _case_text(case: Case) -> str:
    """A case shown to the writer as a source: its input and expected answer."""
    return f"Input: {_json(case.input)}\nExpected: {_json(case.expected)}\n(contenders failed or disagreed here)"


def writer_messages(suite: Suite, dataset: str, item: SourceItem, count: int, seed: int) -> list[dict[str, Any]]:
    """The messages one writer call is sent: the dataset, examples of its cases, the source and the ask."""
    data = suite.datasets[dataset]
    cases = sorted(data.cases, key=lambda c: c.id)
    shown = random.Random(f"{seed}/{item.origin}").sample(cases, min(EXAMPLES, len(cases)))
    examples = "\n".join(
        f"<example>\n{_json({'variant': c.variant, 'input': c.input, 'expected': c.expected})}\n</example>"
        for c in shown
    )
    fields = "".join(f"\n- {f.name} ({f.type}{': ' + ', '.join(f.values) if f.values else ''}): {f.description}"
                     for f in data.fields)  # fmt: skip
    about = "\n".join(t for t in (suite.config.instructions, data.description, data.instructions) if t)
    form = f"The expected answer is an object with these fields (null where the input does not say):{fields}\n"
    user = (
        f"Dataset {dataset} of suite {suite.name}.\n{about}\n"
        + (form if fields else "")
        + f"Cases of the dataset, in its form:\n{examples}\n"
        + f'Write from this source:\n<source name="{item.origin}">\n{item.text}\n</source>\n'
        + f'Write {count} new cases, each unlike the examples and each other, as {{"cases": [{{"variant": ..., '
        '"input": ..., "expected": ...}]}.'
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def _writer(suite: Suite, options: GenerateOptions) -> Contender:
    """The writer model as the provider layer sees it, with the seed among its settings when it takes one."""
    config = suite.config.generate
    model = options.model or config.model
    settings = dict(config.settings)
    provider = get_provider(model)
    if provider.refusal(model, {**settings, "seed": options.seed}) is None:
        settings["seed"] = options.seed
    refused = provider.refusal(model, settings)
    if refused:
        raise ConfigError(f"writer model {model}: {refused}")
    contender = Contender(id=model, model=model, settings=settings, api_base=config.api_base,
                          prices=suite_prices(suite, model))  # fmt: skip
    if options.max_cost is not None and prices_of(contender) is None:
        raise ConfigError(
            f"--max-cost: no price is known for {model}, so the cap cannot bound its calls; give its price in the "
            f"suite, e.g. prices: {{{model}: {{input_cost_per_token: 1.0e-06, output_cost_per_token: 2.0e-06}}}}"
        )
    return contender


async def _ask(writer: Contender, messages: list[dict[str, Any]], suite: Suite) -> Reply:
    config = suite.config.generate
    request = Request(
        contender=writer, messages=messages, response_format={"type": "json_object"}, timeout_s=config.timeout_s,
        max_attempts=config.max_attempts, backoff_s=suite.config.run.backoff_s,
    )  # fmt: skip
    return await get_provider(writer.model).complete(request)


def _reply_cases(text: str) -> list[Any] | None:
    """The ``cases`` list of a writer's reply; None when the reply is not that JSON."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None
    cases = data.get("cases") if isinstance(data, dict) else None
    return cases if isinstance(cases, list) else None


def _kept(
    raw: Any,
    suite: Suite,
    dataset: str,
    whence: tuple[str, SourceItem],
    generator: dict[str, Any],
    seen: Seen,
    check: CaseCheck,
    report: GenerateReport,
) -> Proposal | None:
    """The proposal of one written case, or None when a filter drops it (said in ``report``)."""
    label = " ".join(_json(raw.get("input") if isinstance(raw, dict) else raw).split())[:60]
    data = dict(raw) if isinstance(raw, dict) else raw
    if isinstance(data, dict):
        data.setdefault("id", "proposed")
        data.pop("metadata", None)
    try:
        case = case_from_mapping(data, dataset, f"proposal {label!r}", default_id="proposed")
        problem = check.problem(case)
        if problem is None and check.scores_itself(case) is False:
            problem = "the expected answer does not score 1 against itself"
    except EvalcoreError as exc:
        problem = str(exc).removeprefix(f"proposal {label!r}: ")
    if problem is not None:
        report.dropped.append(("failed checks", f"{label!r}: {problem}"))
        return None
    match = seen.match(case.input)
    if match is not None:
        report.dropped.append(
            ("near-duplicate", f"{label!r}: of {match.name} (similarity {match.similarity:.2f} >= {THRESHOLD})")
        )
        return None
    pid = proposal_id(suite.name, dataset, case.input, case.expected)
    seen.add(f"proposal {pid} (this batch)", case.input)
    shaped = {"id": "", "variant": case.variant, "input": case.input, "expected": case.expected, "metadata": {}}
    source, item = whence
    return Proposal(pid, suite.name, str(suite.path.resolve()), dataset, source, item.origin, shaped, generator)


def _json(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
