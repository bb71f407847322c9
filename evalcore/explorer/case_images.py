"""The images of a case as the Cases page shows them: the pixels from the suite folder the run names, when that
folder is here, lies under the app's suite roots and holds the same bytes; else the reference and its hash.

A run keeps only references (:mod:`evalcore.core.images`), so a run file uploaded on its own, or a run whose
suite folder moved, shows "image not available here". A file is shown only when its hash is the recorded one, so
a run file cannot make the page show any other file of the server.

Nothing here imports streamlit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalcore.core.errors import EvalcoreError
from evalcore.core.images import sha256_of
from evalcore.explorer.suite_roots import confine

#: What the page says for an image whose pixels it cannot show.
NOT_HERE = "image not available here"


@dataclass(frozen=True)
class ShownImage:
    """One image of a case, with its pixels when they can be shown."""

    #: The image's path in the suite, or ``inline image`` for one written in the case.
    label: str
    media_type: str
    sha256: str
    #: Its size in bytes, as recorded.
    size: int
    #: The pixels, or None when they are not available here.
    data: bytes | None
    #: Why the pixels are not shown (None when they are).
    why: str | None = None


def case_images(
    refs: Sequence[Mapping[str, Any]], suite_path: str | None, roots: Sequence[str | Path]
) -> list[ShownImage]:
    """Every image of a case, in order, with its pixels read from ``suite_path`` when they can be shown.

    Args:
        refs: the case's image references (:func:`evalcore.core.images.image_refs` of its input).
        suite_path: the suite folder the run names (its ``suite_path`` setting), or None.
        roots: the folders the app may read suites from (:func:`evalcore.explorer.suite_roots.suite_roots`).
    """
    folder, folder_problem = _suite_folder(suite_path, roots)
    shown = []
    for ref in refs:
        path = ref.get("path")
        label = str(path) if path else "inline image"
        sha, media, size = str(ref.get("sha256", "")), str(ref.get("media_type", "")), int(ref.get("bytes") or 0)
        data: bytes | None = None
        why: str | None
        if not path:
            why = f"{NOT_HERE}: an inline image's bytes stay in the suite's case file, not in the run"
        elif folder is None:
            why = f"{NOT_HERE}: {folder_problem}"
        else:
            data, why = _read(folder, str(path), sha)
        shown.append(ShownImage(label, media, sha, size, data, why))
    return shown


def _suite_folder(suite_path: str | None, roots: Sequence[str | Path]) -> tuple[Path | None, str]:
    if not suite_path:
        return None, "the run names no suite folder"
    try:
        folder = confine(suite_path, roots)
    except EvalcoreError:
        return None, f"the run's suite folder {suite_path} is not among the suite folders this app may read"
    if not folder.is_dir():
        return None, f"the run's suite folder {suite_path} is not on this machine"
    return folder, ""


def _read(folder: Path, path: str, sha: str) -> tuple[bytes | None, str | None]:
    file = (folder / path).resolve()
    if not file.is_relative_to(folder) or not file.is_file():
        return None, f"{NOT_HERE}: {path} is not in the suite folder {folder}"
    data = file.read_bytes()
    if sha256_of(data) != sha:
        return None, f"{NOT_HERE}: {path} has changed since the run (its hash differs)"
    return data, None
