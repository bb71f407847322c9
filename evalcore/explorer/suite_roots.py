"""Suite roots: the folders whose suites the app may load and run.

A deployment that launches runs must not load any folder of the server a visitor types: a suite's files
are read, and a run imports the suite's own scorer and adapter modules. The app therefore offers, and accepts,
only suite folders under its roots: the project's own suites (the bundled ``data/suites`` and the examples of
``docs/examples``, whose images the app then shows) and the folders listed in ``EVALCORE_SUITE_ROOTS`` (or the
same key in ``st.secrets``, which the page reads and passes in). A path is compared by its real location, so
``..`` or a symbolic link that leads out of every root is refused.

The command line is not confined: it runs as the user, on the user's own files.

Nothing here imports streamlit.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from evalcore.core.errors import EvalcoreError

log = logging.getLogger(__name__)

#: Environment variable (or top-level secret) listing more suite roots, separated by ``os.pathsep``.
ROOTS_ENV = "EVALCORE_SUITE_ROOTS"
#: The bundled suites, relative to the working directory: always a root, so the demo keeps running.
BUNDLED_SUITES = Path("data/suites")
#: The documentation's example suites: always a root, so a run of one shows its images and can run again.
BUNDLED_EXAMPLES = Path("docs/examples")
#: The file that makes a folder a suite (as :data:`evalcore.suite.loader.SUITE_FILE`, without its imports).
SUITE_FILE = "evalcore.yaml"
#: How deep below a root suite folders are looked for (``root/team/suite``).
DEPTH = 2


def suite_roots(environ: Mapping[str, str] | None = None, secret: Any = None) -> list[Path]:
    """The folders whose suites the app may run: :data:`BUNDLED_SUITES` and :data:`BUNDLED_EXAMPLES`, then
    ``EVALCORE_SUITE_ROOTS``.

    Args:
        environ: the environment (default: ``os.environ``).
        secret: ``st.secrets["EVALCORE_SUITE_ROOTS"]`` when set: a string like the environment variable's,
            or a list of folders. It replaces the environment variable.

    Returns:
        The roots in order, each once (by real location), as written: a relative root is relative to the
        working directory, ``~`` is expanded.
    """
    env = os.environ if environ is None else environ
    value = secret if secret is not None else env.get(ROOTS_ENV, "")
    items = [str(v) for v in value] if isinstance(value, list | tuple) else str(value).split(os.pathsep)
    roots: list[Path] = []
    seen: set[Path] = set()
    for item in [str(BUNDLED_SUITES), str(BUNDLED_EXAMPLES), *items]:
        if not item.strip():
            continue
        root = Path(item.strip()).expanduser()
        real = root.resolve()
        if real not in seen:
            seen.add(real)
            roots.append(root)
    return roots


def confine(path: str | Path, roots: Sequence[str | Path]) -> Path:
    """``path`` resolved (relative to the working directory), when it lies under one of ``roots``.

    Both sides are compared by their real location: a symbolic link inside a root that points inside a
    root is fine; ``..`` or a link that leads out of every root is not.

    Raises:
        EvalcoreError: ``path`` is outside every root; the message lists the roots.
    """
    real = Path(path).resolve()
    if any(_within(real, Path(root).resolve()) for root in roots):
        return real
    written = Path(os.path.abspath(path))
    through_link = any(_within(written, Path(os.path.abspath(root))) for root in roots)
    how = "leads through a symbolic link out of" if through_link else "is outside"
    listed = ", ".join(str(root) for root in roots) or "none"
    raise EvalcoreError(
        f"{path}: {how} the suite folders this app may run ({listed}); "
        f"move the suite under one of them, or add its folder to {ROOTS_ENV}."
    )


def suites_under(roots: Sequence[str | Path], depth: int = DEPTH) -> dict[str, Path]:
    """Every suite folder (one holding ``evalcore.yaml``) under ``roots``, by label.

    A root may itself be a suite; other suites are looked for up to ``depth`` folders below a root (a
    suite's own sub-folders are not searched, nor hidden folders). A suite that a symbolic link takes
    outside every root is left out, as :func:`confine` would refuse it.

    Labels are the suite's path below its root (``intake``, ``team/intake``). With several roots each label
    starts with its root's name, made long enough to tell the roots apart (``suites/intake``,
    ``srv/evals/intake``), so two roots holding the same folder name stay distinct.

    Returns:
        Label → the suite's folder (the root joined with the path below it), in root order, then by name.
    """
    tags = _root_tags([Path(r) for r in roots])
    found: dict[str, Path] = {}
    seen: set[Path] = set()
    for root, tag in zip(roots, tags, strict=True):
        for below, folder in _suites_in(Path(root), depth):
            real = folder.resolve()
            if real in seen or not any(_within(real, Path(r).resolve()) for r in roots):
                continue
            seen.add(real)
            found["/".join(p for p in (tag, below) if p) or Path(root).resolve().name] = folder
    return found


def _within(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def _suites_in(folder: Path, depth: int, below: str = "") -> Iterator[tuple[str, Path]]:
    """``(path below the root, folder)`` of the suites at and under ``folder``, by name."""
    if (folder / SUITE_FILE).is_file():
        yield below, folder
        return
    if depth <= 0:
        return
    try:
        children = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError as exc:  # a missing or unreadable root lists nothing rather than breaking the page
        log.debug("suite root %s not listed: %s", folder, exc)
        return
    for child in children:
        yield from _suites_in(child, depth - 1, f"{below}/{child.name}" if below else child.name)


def _root_tags(roots: Sequence[Path]) -> list[str]:
    """What each root's labels start with: nothing for a single root, else the fewest trailing parts of its
    absolute path that tell it from the others."""
    if len(roots) < 2:
        return [""] * len(roots)
    parts = [Path(os.path.abspath(r)).parts for r in roots]
    for n in range(1, max(len(p) for p in parts) + 1):
        tags = ["/".join(p[-n:]).lstrip("/") for p in parts]
        if len(set(tags)) == len(tags):
            return tags
    return [os.path.abspath(r) for r in roots]


def suite_of_run(suites: Mapping[str, Path], run_suite: str | None, run_folder: str | None = None) -> int:
    """Which of ``suites`` (label → folder) the Run page opens on: the suite of the run being looked at (or
    resumed), so "run it again" is one click: the folder the run recorded (``run_folder``), else the first
    folder named like the run's suite, else the first listed."""
    if run_folder:
        recorded = Path(run_folder).resolve()
        for i, folder in enumerate(suites.values()):
            if Path(folder).resolve() == recorded:
                return i
    for i, folder in enumerate(suites.values()):
        if run_suite and Path(folder).name == run_suite:
            return i
    return 0
