"""What cannot be imported is refused with one line, and nothing is returned: unknown layouts, damaged or
truncated zips, zip and gzip bombs, invalid JSON."""

from __future__ import annotations

import gzip
import io
import json
import zipfile
import zlib

import pytest
import zstandard

from evalcore.core.errors import RunFileError
from evalcore.runfile.importers import read_import
from tests.importing import INSPECT

MAIN = INSPECT / "capitals.eval"


def _refusal(data: bytes, name: str = "f.json", **kwargs) -> str:  # noqa: ANN003
    """The refusal as one line: its headline, then its one problem (``where: what``)."""
    with pytest.raises(RunFileError) as caught:
        read_import(data, name=name, **kwargs)
    (problem,) = caught.value.problems
    return f"{str(caught.value).splitlines()[0]} | {problem}"


def test_json_of_an_unknown_layout_says_what_was_found_and_what_was_expected():
    text = _refusal(b'{"a": 1, "rows": []}', name="other.json")
    assert text.startswith(
        "other.json: not a file evalcore can import | (file): found a JSON object with keys a, rows;"
    )
    assert "expected an evalcore run file" in text and "promptfoo" in text and "Inspect AI log" in text


def test_an_inspect_listing_is_refused_saying_to_import_its_folder():
    header = {k: v for k, v in json.loads((INSPECT / "capitals-hot.json").read_text()).items() if k != "samples"}
    listing = json.dumps({"capitals-hot.json": header, "capitals.eval": header}).encode()
    text = _refusal(listing, name="logs/logs.json")
    assert text == (
        "logs/logs.json: not a file evalcore can import | (file): found Inspect's listing of 2 logs (logs.json), "
        "which holds no samples; import the folder of the logs instead: evalcore import logs"
    )


@pytest.mark.parametrize(
    ("data", "found"),
    [
        (b"[1, 2]", "a JSON array of 2 items"),
        (b"some notes", "a file that is neither JSON nor a zip archive"),
        (b"{}", "an empty JSON object"),
        (b"", "an empty file"),
    ],
)
def test_other_content_is_refused_in_one_line(data, found):
    assert f"found {found};" in _refusal(data)


def test_a_zip_that_is_not_an_inspect_log_is_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("word/document.xml", "<w/>")
    assert "found a zip archive holding word/document.xml;" in _refusal(buffer.getvalue(), name="notes.docx")


def test_a_truncated_eval_log_is_refused():
    data = MAIN.read_bytes()
    text = _refusal(data[: len(data) // 2], name="cut.eval")
    assert text.startswith("cut.eval: a zip archive that cannot be read | (file): truncated or damaged")


def test_a_damaged_zstandard_entry_is_refused():
    data = bytearray(MAIN.read_bytes())
    info = zipfile.ZipFile(MAIN).getinfo("samples/1_epoch_1.json")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start + 20 : start + 40] = b"\x00" * 20
    assert "| samples/1_epoch_1.json: truncated or damaged" in _refusal(bytes(data), name="bad.eval")


def _eval_zip(entries: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as z:
        for name, content in entries.items():
            z.writestr(name, content)
    return buffer.getvalue()


def test_a_zip_whose_entries_claim_more_than_the_cap_is_refused_before_decompressing():
    big = b"{" + b" " * 2_000_000 + b"}"
    data = _eval_zip({"header.json": b"{}", "samples/1_epoch_1.json": big})
    text = _refusal(data, name="bomb.eval", max_bytes=1_000_000)
    assert "entries would decompress to 2,000,004 bytes, over the limit of 1,000,000 bytes" in text


def _forge_size(data: bytes, entry: str, size: int) -> bytes:
    """The zip with ``entry``'s declared size changed in its central directory (a bomb's disguise)."""
    patched = bytearray(data)
    at = _header_of(patched, b"PK\x01\x02", entry)
    patched[at + 24 : at + 28] = size.to_bytes(4, "little")
    return bytes(patched)


def test_a_deflate_entry_larger_than_it_declares_is_refused():
    data = _eval_zip({"header.json": b"{}", "samples/1_epoch_1.json": b"[" + b"0," * 500_000 + b"0]"})
    forged = _forge_size(data, "samples/1_epoch_1.json", 100)
    assert "| samples/1_epoch_1.json: truncated or damaged" in _refusal(forged, name="bomb.eval")


def test_a_zstandard_entry_larger_than_it_declares_is_refused():
    content = {"header.json": b"{}", "samples/1_epoch_1.json": b"[" + b"0," * 500_000 + b"0]"}
    declared = {"header.json": 2, "samples/1_epoch_1.json": 100}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:  # stored, then re-labelled as Zstandard below
        for name, plain in content.items():
            z.writestr(name, zstandard.ZstdCompressor().compress(plain))
    data = bytearray(buffer.getvalue())
    for name, plain in content.items():
        # (signature, offset of the method, of the CRC, of the uncompressed size) in each header
        for signature, method, crc, size in ((b"PK\x03\x04", 8, 14, 22), (b"PK\x01\x02", 10, 16, 24)):
            at = _header_of(data, signature, name)
            data[at + method : at + method + 2] = (93).to_bytes(2, "little")
            data[at + crc : at + crc + 4] = zlib.crc32(plain).to_bytes(4, "little")
            data[at + size : at + size + 4] = declared[name].to_bytes(4, "little")
    text = _refusal(bytes(data), name="bomb.eval")
    assert "samples/1_epoch_1.json: decompresses to more than the 100 bytes it declares" in text


def _header_of(data: bytearray, signature: bytes, name: str) -> int:
    """Where the local (PK\\3\\4) or central (PK\\1\\2) header of ``name`` starts."""
    at = -1
    while (at := data.find(signature, at + 1)) >= 0:
        length_at = 26 if signature == b"PK\x03\x04" else 28
        n = int.from_bytes(data[at + length_at : at + length_at + 2], "little")
        start = at + (30 if signature == b"PK\x03\x04" else 46)
        if data[start : start + n] == name.encode():
            return at
    raise AssertionError(name)


def test_a_gzip_bomb_is_refused_at_the_cap():
    bomb = gzip.compress(b" " * 3_000_000)
    text = _refusal(bomb, name="bomb.json.gz", max_bytes=1_000_000)
    assert (
        text
        == "bomb.json.gz: too large | (file): decompressed size exceeds the limit of 1,000,000 bytes; nothing was read"
    )


def test_truncated_json_says_where_it_breaks():
    data = (INSPECT / "capitals-hot.json").read_bytes()
    assert _refusal(data[:5000], name="cut.json").startswith("cut.json: not valid JSON | line ")


def test_a_file_over_the_cap_is_refused_before_it_is_parsed(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b"{" + b" " * 2000 + b"}")
    with pytest.raises(RunFileError, match="size exceeds the limit of 1,000 bytes"):
        read_import(path, max_bytes=1000)
