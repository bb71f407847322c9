"""A valid run whose every free-text field carries HTML, scripts, event handlers, Markdown links and images.

Shared by the AppTest and browser tests of untrusted text: the app must show all of it as text.
"""

from __future__ import annotations

import copy
import dataclasses

from evalcore.core import records
from tests.factories import make_run

#: Each payload sets ``window.__pwned`` (or loads ``x``) if it is ever run or rendered as markup.
PAYLOADS = (
    '<script>window.__pwned="script"</script>',
    "<img src=x onerror=\"window.__pwned='img'\">",
    '[click me](javascript:window.__pwned="link")',
    "![tracker](x)",
    "<svg onload=\"window.__pwned='svg'\"><circle r=9></circle></svg>",
    "<iframe src=\"javascript:window.__pwned='iframe'\"></iframe>",
    "<a href=\"javascript:window.__pwned='a'\">a link</a>",
    "**bold** :red[red] $\\LaTeX$ <b id=pwned>b</b>",
)


def payload(i: int, tag: str = "") -> str:
    """The ``i``-th payload (cycling), made unique by ``tag``."""
    return f"{PAYLOADS[i % len(PAYLOADS)]} {tag}".strip()


def untrusted_run(run_id: str = "run-untrusted") -> records.Run:
    """3 contenders × 6 cases with a payload in every name and text a run file can carry."""
    run = make_run(n_contenders=3, n_cases=6, run_id=run_id)
    run.info.suite = f"{PAYLOADS[1]} {payload(3, 'suite')}"
    run.metrics = [
        dataclasses.replace(m, description=payload(i + 3, f"metric {m.name}")) for i, m in enumerate(run.metrics)
    ]
    contenders = {c.id: payload(i, f"#{i}") for i, c in enumerate(run.contenders)}
    run.contenders = [
        dataclasses.replace(c, id=contenders[c.id], settings={**c.settings, "stop": payload(0)}) for c in run.contenders
    ]
    datasets = {"roofing": payload(1, "dataset")}
    cases = {}
    for j, case in enumerate(run.cases):
        new_id = payload(j + 2, f"case {j}") if j % 2 else case.id
        cases[case.key] = (datasets.get(case.dataset, case.dataset), new_id)
        case.dataset, case.id = cases[case.key]
        case.variant = payload(j, "variant") if j % 3 == 0 else case.variant
        case.input = (
            f"{payload(j, 'input')}\nSecond line {payload(j + 1)}"
            if j % 4 != 3
            else {"subject": payload(j, "subject"), "body": payload(j + 4, "body")}
        )
        case.expected = {"client_name": payload(j + 5, "expected"), "dependents": None}
        case.metadata = {**case.metadata, payload(3, "meta key"): payload(j % 2, "meta value")}
    for r in run.results:
        r.contender = contenders[r.contender]
        r.dataset, r.case = cases[(r.dataset, r.case)]
        if r.status == "scored":
            r.output = {"client_name": payload(r.sample + 2, "output"), "dependents": None}
            r.raw = payload(6, "raw")
            r.diagnostics = {"client_name": {"want": payload(5, "want"), "got": payload(7, "got")}}
        if r.error is not None:
            r.error = records.ErrorInfo(r.error.kind, payload(1, "error message"))
    run.refused = [records.Refusal(payload(2, "refused model"), {}, payload(0, "reason"))]
    return copy.deepcopy(run)
