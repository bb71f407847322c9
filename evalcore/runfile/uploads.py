"""Files that arrive through the browser (run files, promptfoo result files, Inspect logs): size-capped
before they are parsed.

Streamlit's own limit (``server.maxUploadSize`` in ``.streamlit/config.toml``) stops large files in
the browser; :func:`read_upload` checks again on the server, then reads the file with a cap on its
decompressed size (gzip, or all the entries of an Inspect ``.eval`` zip), so a small bomb cannot fill
the memory of a deployment (about 2.7 GB on Streamlit Community Cloud). :func:`store_upload` puts an upload
into a store on disk instead of memory: a run file as it streams (a part of its results in memory at a
time), any other file read whole and then stored; each also capped in results. Larger runs go through
``evalcore import``, which has no such cap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from evalcore.core.errors import RunFileError
from evalcore.core.records import Run

if TYPE_CHECKING:
    from evalcore.storage.store import Store

MB = 1 << 20
#: The largest upload, as sent (matches ``server.maxUploadSize = 50`` in ``.streamlit/config.toml``).
MAX_UPLOAD_BYTES = 50 * MB
#: The largest file an upload read whole may decompress to (about 250,000 results): anything but a run file
#: in evalcore's own layout, which streams.
MAX_UPLOAD_JSON_BYTES = 256 * MB
#: The largest run file a streamed upload may decompress to (about 1,300,000 results); it is never held whole.
MAX_STREAMED_UPLOAD_BYTES = 1024 * MB
#: The most results an upload may hold.
MAX_UPLOAD_RESULTS = 1_000_000


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


def store_upload(data: bytes, store: Store, name: str = "the uploaded file") -> str:
    """Check an upload's size, then store its run in ``store`` (on disk): a run file as it streams, any other
    file (:func:`read_upload`) read whole first. Nothing is stored when the upload is refused.

    Returns:
        The stored run's id.

    Raises:
        RunFileError: as :func:`read_upload`; and the upload holds more results than :data:`MAX_UPLOAD_RESULTS`
            The problem names the limit and its value.
    """
    import io

    from evalcore.runfile.stream import OverResultCap, import_run_file

    if too_large(data):
        return read_upload(data, name).info.id  # refused, with the limit
    try:
        streamed = import_run_file(
            store, io.BytesIO(data), max_bytes=MAX_STREAMED_UPLOAD_BYTES, max_results=MAX_UPLOAD_RESULTS
        )
    except OverResultCap as over:
        raise too_many_results(name, None, over.args[0]) from None
    if streamed is not None:
        return streamed[0].info.id
    run = read_upload(data, name)
    if len(run.results) > MAX_UPLOAD_RESULTS:
        raise too_many_results(name, len(run.results), MAX_UPLOAD_RESULTS)
    store.import_run(run, replace=True)
    return run.info.id


class TooManyResults(RunFileError):
    """An upload holds more results than an upload may."""


def too_many_results(name: str, held: int | None, limit: int) -> TooManyResults:
    """The refusal of an upload with more results than ``limit`` (``held``: how many, None: more than that)."""
    count = f"{held:,} results" if held is not None else f"more than {limit:,} results"
    problem = (
        f"(file): {count}, over the upload limit of {limit:,} results; "
        "import it on the command line instead: evalcore import FILE"
    )
    return TooManyResults(f"{name}: too many results to upload", problems=[problem])


def limits_text() -> str:
    """The upload limits, in bytes and results, as the Upload page states them."""
    return (
        f"An upload holds at most {MAX_UPLOAD_BYTES:,} bytes ({_mb(MAX_UPLOAD_BYTES)}) as sent and "
        f"{MAX_UPLOAD_RESULTS:,} results; once decompressed, an evalcore run file at most "
        f"{MAX_STREAMED_UPLOAD_BYTES:,} bytes ({_mb(MAX_STREAMED_UPLOAD_BYTES)}), any other file "
        f"{MAX_UPLOAD_JSON_BYTES:,} bytes ({_mb(MAX_UPLOAD_JSON_BYTES)})."
    )


def too_large(data: bytes, max_bytes: int | None = None) -> bool:
    """Whether an upload is over the limit (default :data:`MAX_UPLOAD_BYTES`), before any parsing."""
    return len(data) > (MAX_UPLOAD_BYTES if max_bytes is None else max_bytes)


def _mb(n: int) -> str:
    return f"{n / MB:,.4g} MB"
