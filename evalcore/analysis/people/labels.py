"""Human labels and judge verdicts side by side: the table :mod:`~evalcore.analysis.people.agreement` compares.

A labels table has a column ``id`` (text, unique), a column ``human`` and one column per judge. Each cell
is None (missing), a float (a number) or a str (a label), by these rules (:func:`cell_value`):

- blank text, JSON ``null`` and NaN are missing;
- numbers, and text that reads as a finite number (``"4"``, ``" 0.5 "``), are numbers;
- ``true`` and ``false`` (JSON booleans, or that text in any case) are the numbers 1 and 0;
- any other text is a label, compared exactly after trimming spaces (``Yes`` and ``yes`` differ).

It comes from a file (:func:`parse_labels`: CSV, TSV, JSON Lines or a JSON array of objects, where every
column but ``id`` and ``human`` whose name starts with ``judge`` is a judge), or from a run whose cases
carry the human label in their metadata (:func:`labels_from_run`). Both take data in hand and do no IO.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from evalcore._util import jsonfast
from evalcore.core.errors import ConfigError
from evalcore.core.records import Run

ID, HUMAN = "id", "human"
#: A column whose name starts with this (other than ``id`` and ``human``) holds a judge's verdicts.
JUDGE_PREFIX = "judge"
#: ``--judge-metric`` names that read a result's output rather than a metric.
OUTPUT = "output"

Cell = float | str | None


@dataclass
class LabelsTable:
    """Rows to compare: ``frame`` has the columns ``id``, ``human`` and each of ``judges``, cells as
    :func:`cell_value` makes them (object dtype: None stays None).

    Attributes:
        frame: one row per item.
        judges: the judge columns, in the file's (or the command line's) order.
        source: where the rows come from, for the report: a file name or ``run ID``.
        notes: what the reader should know about how the rows were made (ignored columns, cases left out).
    """

    frame: pd.DataFrame
    judges: list[str]
    source: str
    notes: list[str] = field(default_factory=list)


def cell_value(value: Any, where: str, hint: str = "") -> Cell:
    """A raw cell as a number, a label or None (see the module docstring for the rules).

    Args:
        value: what the file or the run holds: text, a number, a boolean or None.
        where: the cell's place, for the error message (``labels.csv: line 4: judge``).

    Raises:
        ConfigError: an object, a list, or an infinite number.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        if text.lower() in ("true", "false"):
            return float(text.lower() == "true")
        try:
            number = float(text)
        except ValueError:
            return text
    else:
        kind = "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else type(value).__name__
        shown = json.dumps(value, default=str, ensure_ascii=False)[:60]
        raise ConfigError(f"{where}: {kind} is not a label or a number: {shown}{hint}")
    if math.isnan(number):
        return None
    if math.isinf(number):
        raise ConfigError(f"{where}: {value!r} is not a finite number")
    return number


def judge_columns(columns: Iterable[str]) -> list[str]:
    """The judge columns among a file's columns, in order: every name but ``id`` and ``human`` that starts
    with ``judge``."""
    return [c for c in columns if c not in (ID, HUMAN) and c.startswith(JUDGE_PREFIX)]


def parse_labels(text: str, source: str) -> LabelsTable:
    """Read a labels file's text.

    The format comes from the name: ``.csv`` (comma, or the semicolon or tab the header uses), ``.tsv``,
    ``.jsonl`` / ``.ndjson`` (one JSON object per line), ``.json`` (an array of objects); another name is
    read as JSON when its text starts with ``{`` or ``[``, else as CSV. Columns other than ``id``, ``human``
    and the judges are ignored (the notes name them).

    Args:
        text: the file's text (a leading byte-order mark is dropped).
        source: the file's name, for the format and for messages.

    Raises:
        ConfigError: unreadable rows, no ``id`` or ``human`` column, no judge column, a blank or repeated id.
    """
    text = text.removeprefix("\ufeff")
    name = source.lower()
    start = text.lstrip()[:1]
    if name.endswith((".jsonl", ".ndjson", ".json")) or (not name.endswith((".csv", ".tsv")) and start in "{["):
        records = _json_records(text, source)
        columns = list(dict.fromkeys(key for _, row in records for key in row))
    else:
        columns, records = _csv_records(text, source)
    for required in (ID, HUMAN):
        if required not in columns:
            raise ConfigError(f"{source}: no {required!r} column; columns found: {', '.join(columns) or 'none'}")
    judges = judge_columns(columns)
    if not judges:
        raise ConfigError(
            f"{source}: no judge column: name one 'judge' (or 'judge_<name>' for several); "
            f"columns found: {', '.join(columns)}"
        )
    if not records:
        raise ConfigError(f"{source}: no rows: the file has a header and nothing under it")
    frame = _frame(records, judges, source)
    ignored = [c for c in columns if c not in (ID, HUMAN, *judges)]
    notes = [f"ignored columns: {', '.join(ignored)}"] if ignored else []
    return LabelsTable(frame, judges, source, notes)


def _csv_records(text: str, source: str) -> tuple[list[str], list[tuple[str, dict[str, Any]]]]:
    """The header and the non-blank rows of CSV text, each row with its place for messages."""
    first = text.lstrip("\r\n").partition("\n")[0]
    delimiter = "\t" if source.lower().endswith(".tsv") else ","
    if delimiter == "," and "," not in first:
        delimiter = next((d for d in ";\t" if d in first), ",")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    records = []
    try:
        header = [name.strip() for name in next(reader, [])]
        repeated = sorted({c for c in header if c and header.count(c) > 1})
        if repeated:
            raise ConfigError(f"{source}: line 1: column {repeated[0]!r} appears twice")
        for cells in reader:
            where = f"{source}: line {reader.line_num}"
            if len(cells) > len(header) and any(c.strip() for c in cells[len(header) :]):
                raise ConfigError(f"{where}: {len(cells)} cells, the header has {len(header)}")
            if any(c.strip() for c in cells):
                # A short row leaves its last columns missing.
                records.append((where, {name: cell for name, cell in zip(header, cells, strict=False) if name}))
    except csv.Error as e:
        raise ConfigError(f"{source}: line {reader.line_num}: {e}") from None
    if not any(header):
        raise ConfigError(f"{source}: empty file: write a header line such as id,human,judge")
    return [name for name in header if name], records


def _json_records(text: str, source: str) -> list[tuple[str, dict[str, Any]]]:
    """The objects of JSON Lines (or of a JSON array), each with its place for messages."""
    if text.lstrip().startswith("["):
        try:
            items = json.loads(text)
        except json.JSONDecodeError as e:
            raise ConfigError(f"{source}: {jsonfast.error_text(e, 'not valid JSON: ')}") from None
        places = [f"{source}: item {i + 1}" for i in range(len(items))]
    else:
        items, places = [], []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                items.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ConfigError(f"{source}: {jsonfast.error_text(e, 'not valid JSON: ', line=number)}") from None
            places.append(f"{source}: line {number}")
    for where, item in zip(places, items, strict=True):
        if not isinstance(item, dict):
            raise ConfigError(f"{where}: not a JSON object: {json.dumps(item)[:60]}")
    if not items:
        raise ConfigError(f'{source}: empty file: write one object per line, e.g. {{"id": 1, "human": ...}}')
    return list(zip(places, items, strict=True))


def _frame(rows: Sequence[tuple[str, dict[str, Any]]], judges: list[str], source: str) -> pd.DataFrame:
    """The labels frame of raw rows: ids checked (present, unique), cells through :func:`cell_value`."""
    ids: list[str] = []
    seen: dict[str, str] = {}
    columns: dict[str, list[Cell]] = {HUMAN: [], **{j: [] for j in judges}}
    for where, row in rows:
        raw_id = row.get(ID)
        if raw_id is None or (isinstance(raw_id, str) and not raw_id.strip()):
            raise ConfigError(f"{where}: the id is blank: every row needs one")
        if isinstance(raw_id, dict | list):
            raise ConfigError(f"{where}: id: {json.dumps(raw_id)[:60]} is not an id")
        key = str(raw_id).strip()
        if key in seen:
            raise ConfigError(f"{where}: id {key!r} again (first at {seen[key].removeprefix(source + ': ')})")
        seen[key] = where
        ids.append(key)
        for name, cells in columns.items():
            cells.append(cell_value(row.get(name), f"{where}: {name}"))
    return labels_frame(ids, columns)


def labels_frame(ids: Sequence[str], columns: dict[str, list[Cell]]) -> pd.DataFrame:
    """A labels frame from ids and cell columns, every column of object dtype (None stays None)."""
    data = {ID: pd.Series(list(ids), dtype=object)}
    data |= {name: pd.Series(cells, dtype=object) for name, cells in columns.items()}
    return pd.DataFrame(data)


def labels_from_run(
    run: Run,
    human_key: str,
    judge_metrics: Sequence[str] = ("score",),
    contenders: Sequence[str] = (),
) -> LabelsTable:
    """The labels table of a run: the human label from each case's metadata, a judge column per contender
    and metric (or output), its value averaged over the case's samples.

    A row per case whose metadata has ``human_key``, with the id ``dataset/case``. A judge's value of a
    case is the mean over its scored samples of ``score``, a declared metric, or, for ``output`` or
    ``output.FIELD`` (a dotted path into a JSON output), of the output when every sample's is a number;
    labels take the most common one (a tie goes to the label of the lowest sample). Failed calls and null
    values are missing.

    Args:
        run: a run with its cases and (at least the chosen contenders') results.
        human_key: the case metadata key that holds the human label.
        judge_metrics: what each judge column reads: ``score``, metric names, ``output``, ``output.FIELD``.
        contenders: the contenders whose results are judged; empty: the run's only contender.

    Raises:
        ConfigError: no case has the key, an unknown contender or metric, several contenders and none
            chosen, or a value that is not a label or a number.
    """
    metrics = list(dict.fromkeys(judge_metrics)) or ["score"]
    known = {"score", *(m.name for m in run.metrics)}
    for name in metrics:
        if name not in known and name != OUTPUT and not name.startswith(OUTPUT + "."):
            raise ConfigError(
                f"run {run.info.id}: --judge-metric {name!r} is not a metric of this run; use one of "
                f"{', '.join(sorted(known))}, {OUTPUT} or {OUTPUT}.FIELD"
            )
    labelled = [c for c in run.cases if human_key in c.metadata]
    if not labelled:
        keys = sorted({k for c in run.cases for k in c.metadata})
        raise ConfigError(
            f"run {run.info.id}: no case has the metadata key {human_key!r} (--human-key); "
            f"keys found: {', '.join(keys) or 'none'}"
        )
    chosen = _contenders(run, contenders)
    ids = [f"{c.dataset}/{c.id}" for c in labelled]
    columns: dict[str, list[Cell]] = {
        HUMAN: [
            cell_value(c.metadata[human_key], f"run {run.info.id}: case {i}: {human_key}")
            for c, i in zip(labelled, ids, strict=True)
        ]
    }
    samples: dict[tuple[str, str, str], list[Any]] = {}
    for r in sorted(run.results, key=lambda r: r.sample):
        if r.contender in chosen and r.status == "scored":
            for name in metrics:
                samples.setdefault((r.contender, r.dataset + "/" + r.case, name), []).append(_read(r, name))
    judges = []
    for contender in chosen:
        for name in metrics:
            column = name if len(chosen) == 1 else contender if len(metrics) == 1 else f"{contender}: {name}"
            judges.append(column)
            hint = f"; name a field of it: --judge-metric {OUTPUT}.FIELD" if name == OUTPUT else ""
            columns[column] = [
                _case_value(
                    samples.get((contender, i, name), []), f"run {run.info.id}: {contender}: case {i}: {name}", hint
                )
                for i in ids
            ]
    notes = [f"{len(labelled)} of {len(run.cases)} cases carry metadata {human_key!r}"]
    return LabelsTable(labels_frame(ids, columns), judges, f"run {run.info.id}", notes)


def _contenders(run: Run, wanted: Sequence[str]) -> list[str]:
    ids = [c.id for c in run.contenders]
    if not wanted:
        if len(ids) != 1:
            listed = "; ".join(repr(i) for i in ids) or "none"
            raise ConfigError(f"run {run.info.id} has {len(ids)} contenders: choose with --contender ({listed})")
        return ids
    unknown = [w for w in wanted if w not in ids]
    if unknown:
        raise ConfigError(
            f"run {run.info.id}: no contender {unknown[0]!r}; contenders: {'; '.join(repr(i) for i in ids)}"
        )
    return list(dict.fromkeys(wanted))


def _read(result: Any, name: str) -> Any:
    """A scored result's value of ``score``, a metric, or its output (or a field of it, by dotted path)."""
    if name == "score":
        return result.score
    if name != OUTPUT and not name.startswith(OUTPUT + "."):
        return result.metrics.get(name)
    value = result.output
    for part in name.split(".")[1:]:
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _case_value(values: list[Any], where: str, hint: str = "") -> Cell:
    """One case's judge value from its samples' values: the mean of numbers, else the most common label."""
    cells = [c for c in (cell_value(v, where, hint) for v in values) if c is not None]
    if not cells:
        return None
    if all(isinstance(c, float) for c in cells):
        return math.fsum(c for c in cells if isinstance(c, float)) / len(cells)
    texts = [label_text(c) for c in cells]
    counts = Counter(texts)
    top = max(counts.values())
    return next(t for t in texts if counts[t] == top)


def label_text(cell: float | str) -> str:
    """A cell as a label: text as it is, a number in its shortest form (``4.0`` → ``"4"``, ``0.5`` → ``"0.5"``)."""
    if isinstance(cell, str):
        return cell
    return str(int(cell)) if cell.is_integer() and abs(cell) < 1e15 else repr(cell)
