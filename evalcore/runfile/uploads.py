"""Files that arrive through the browser (run files, promptfoo result files, Inspect logs): size-capped
before they are parsed.

Streamlit's own limit (``server.maxUploadSize`` in ``.streamlit/config.toml``) stops large files in
the browser; :func:`read_upload` checks again on the server, then reads the file with a cap on its
decompressed size (gzip, or all the entries of an Inspect ``.eval`` zip), so a small bomb cannot fill
the memory of a deployment (about 2.7 GB on Streamlit Community Cloud). Larger runs go through
``evalcore import``, which has no such cap.
"""

from __future__ import annotations

from evalcore.core.errors import RunFileError
from evalcore.core.records import Run

MB = 1 << 20
#: The largest upload, as sent (matches ``server.maxUploadSize = 50`` in ``.streamlit/config.toml``).
MAX_UPLOAD_BYTES = 50 * MB
#: The largest run file an upload may decompress to (about 250,000 results).
MAX_UPLOAD_JSON_BYTES = 256 * MB


def read_upload(
    data: bytes, name: str = "the uploaded file", *, max_bytes: int | None = None, max_json_bytes: int | None = None
) -> Run:
    """Check an upload's size, then read it as a run file, a promptfoo result file or an Inspect log (told
    apart by content, see :func:`evalcore.runfile.importers.read_import`).

    Args:
        data: the file's bytes, as uploaded (gzip or not).
        name: what error messages call the file.
        max_bytes: the most bytes accepted as sent; default :data:`MAX_UPLOAD_BYTES`.
        max_json_bytes: the most bytes the file may hold once decompressed; default
            :data:`MAX_UPLOAD_JSON_BYTES`.

    Raises:
        RunFileError: the file is too large, of no known layout, or not a valid run file; ``problems`` (or,
            for a file that cannot be imported, the one-line message) says which.
    """
    max_bytes = MAX_UPLOAD_BYTES if max_bytes is None else max_bytes
    max_json_bytes = MAX_UPLOAD_JSON_BYTES if max_json_bytes is None else max_json_bytes
    if too_large(data, max_bytes):
        problem = (
            f"(file): {len(data):,} bytes, over the upload limit of {max_bytes:,} bytes ({_mb(max_bytes)}); "
            "import it on the command line instead: evalcore import FILE"
        )
        raise RunFileError(f"{name}: too large to upload", problems=[problem])
    from evalcore.runfile.importers import read_import

    return read_import(data, name=name, max_bytes=max_json_bytes)


def too_large(data: bytes, max_bytes: int | None = None) -> bool:
    """Whether an upload is over the limit (default :data:`MAX_UPLOAD_BYTES`), before any parsing."""
    return len(data) > (MAX_UPLOAD_BYTES if max_bytes is None else max_bytes)


def _mb(n: int) -> str:
    return f"{n / MB:,.4g} MB"
