"""Read the images a suite's cases carry, and check them when the suite loads.

A case's input object may list ``images``, each either a file of the suite or inline base64::

    input:
      text: What is the total on this receipt?
      images:
        - path: datasets/receipts/images/r1.png        # relative to the suite folder
        - {data: iVBORw0KGgo..., media_type: image/png}

A file's media type comes from its suffix (or a ``media_type`` given beside it). Each image becomes a reference
``{path, media_type, sha256, bytes}`` in the case's input (what the run file keeps and the definition fingerprint
hashes); its pixels go on the case (:attr:`~evalcore.core.records.Case.images`). A missing file, a path that
leads out of the suite folder, an unknown media type or data that is not base64 is a
:class:`~evalcore.core.errors.ConfigError` naming the case and the fix.
"""

from __future__ import annotations

import base64
import binascii
from pathlib import Path
from typing import Any

from evalcore.core.errors import ConfigError
from evalcore.core.images import IMAGES_KEY, MEDIA_TYPES, sha256_of
from evalcore.core.records import Case

_SHAPE = "{path: images/x.png} (a file of the suite) or {data: <base64>, media_type: image/png}"


def attach_images(cases: list[Case], suite_folder: Path) -> None:
    """Replace each case's ``images`` by their references and put their pixels on the case, in place.

    Raises:
        ConfigError: an image that cannot be read or sent, naming the case, the image and the fix.
    """
    root = suite_folder.resolve()
    for case in cases:
        if not isinstance(case.input, dict) or IMAGES_KEY not in case.input:
            continue
        where = f"{case.source or case.dataset + '/' + case.id}: images"
        given = case.input[IMAGES_KEY]
        if not isinstance(given, list) or not given:
            raise ConfigError(f"{where}: must be a non-empty list of images like {_SHAPE}")
        refs = []
        for i, item in enumerate(given):
            ref, data = _read_image(item, root, f"{where}[{i}]")
            refs.append(ref)
            case.images[ref["sha256"]] = data
        case.input = {**case.input, IMAGES_KEY: refs}


def _read_image(item: Any, root: Path, where: str) -> tuple[dict[str, Any], bytes]:
    one_source = isinstance(item, dict) and ("path" in item) != ("data" in item)
    if not one_source or set(item) - {"path", "data", "media_type"}:
        raise ConfigError(f"{where}: {item!r} is not an image. Write {_SHAPE}")
    if "path" in item:
        path, data = _read_file(item["path"], root, where)
        media_type = _media_type(item.get("media_type") or _by_suffix(path, where), where)
        ref: dict[str, Any] = {"path": item["path"]}
    else:
        media_type = _media_type(item.get("media_type"), where)
        data = _decode(item["data"], where)
        ref = {}
    return {**ref, "media_type": media_type, "sha256": sha256_of(data), "bytes": len(data)}, data


def _read_file(given: Any, root: Path, where: str) -> tuple[Path, bytes]:
    if not isinstance(given, str) or not given.strip():
        raise ConfigError(f"{where}: path: {given!r} is not a file path. Give a path relative to the suite folder.")
    path = (root / given).resolve()
    if not path.is_relative_to(root):
        raise ConfigError(
            f"{where}: path: {given!r} leads out of the suite folder {root}. Copy the image into the suite folder "
            "and give its path relative to it."
        )
    if not path.is_file():
        raise ConfigError(f"{where}: path: {given!r}: no such file {path}. Paths are relative to the suite folder.")
    return path, path.read_bytes()


def _by_suffix(path: Path, where: str) -> str:
    suffix = path.suffix.lower()
    found = next((t for t, suffixes in MEDIA_TYPES.items() if suffix in suffixes), None)
    if found is None:
        known = ", ".join(s for suffixes in MEDIA_TYPES.values() for s in suffixes)
        raise ConfigError(
            f"{where}: {path.name}: {suffix or 'no suffix'} is not an image type a model is sent ({known}). "
            "Convert it, or give its media_type."
        )
    return found


def _media_type(value: Any, where: str) -> str:
    if value not in MEDIA_TYPES:
        raise ConfigError(f"{where}: media_type: {value!r} is not one of {list(MEDIA_TYPES)}.")
    return str(value)


def _decode(value: Any, where: str) -> bytes:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: data: must be the image's bytes in base64 (text), got {type(value).__name__}.")
    text = value.strip()
    if text.startswith("data:"):
        raise ConfigError(f"{where}: data: give the base64 only, without the 'data:...;base64,' prefix.")
    try:
        data = base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise ConfigError(
            f"{where}: data: {text[:24]!r}… is not base64. Encode the image's bytes, e.g. `base64 -w0 image.png`."
        ) from None
    if not data:
        raise ConfigError(f"{where}: data: the image is empty.")
    return data
