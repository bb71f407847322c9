"""The passwords of a PostgreSQL URL: shown masked in messages, found to be scrubbed from a server's words, and
refused when written so that the server's client would read a piece of one as the host or the query.

A password is in the user part (``postgresql://user:password@host/db``) or a ``password=`` parameter of the
query. The user part's runs to the last ``@``, whatever the characters in it, so a password with a bare
``?``, ``#``, ``/`` or ``@`` is still masked whole.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from evalcore.core.errors import ConfigError


def without_password(url: str) -> str:
    """``url`` with its passwords (the user part's, a ``password=`` parameter's) shown as ``***``: messages and
    logs never carry them, however the URL is written."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    found = _user_part(rest)
    if found is not None:
        rest = f"{found[0]}:***@{rest[found[2] + 1 :]}"
    return scheme + sep + _QUERY_PASSWORD.sub(r"\1***", rest)


def url_passwords(url: str) -> list[str]:
    """Every password ``url`` holds, as written and percent-decoded: what a message quoting the server (which
    may have read the URL another way) must not show."""
    rest = url.partition("://")[2]
    found = _user_part(rest)
    written = [found[1]] if found is not None else []
    written += [m.group(2) for m in _QUERY_PASSWORD.finditer(rest)]
    return sorted({p for w in written for p in (w, unquote(w)) if p}, key=len, reverse=True)


#: A ``password=`` (or ``sslpassword=``) parameter of the URL's query, and its value.
_QUERY_PASSWORD = re.compile(r"([?&](?:ssl)?password=)([^&#]*)", re.IGNORECASE)


def _user_part(rest: str) -> tuple[str, str, int] | None:
    """The user, the password and where the ``@`` ending them is in ``rest`` (the URL after ``://``), or None
    when it names no password. The password runs to the last ``@``: a ``?``, ``#``, ``/`` or ``@`` the user did
    not percent-encode stays inside it rather than spilling into the host or the query."""
    at = rest.rfind("@")
    user, colon, password = rest[: max(at, 0)].partition(":")
    if at < 0 or not colon or any(c in user for c in "/?#"):
        return None
    return user, password, at


def check_password(url: str, source: str) -> None:
    """Refuse a password holding a character a URL must percent-encode: the server's client would read the
    URL another way (a piece of the password as the host, say) and quote that piece in its error."""
    found = _user_part(url.partition("://")[2])
    if found is not None and any(c in found[1] for c in "?#/@"):
        raise ConfigError(
            f"{source} {without_password(url)}: the password holds a character a URL must percent-encode "
            "(? # / @ as %3F %23 %2F %40); percent-encode it, or better, leave the password out of the URL and "
            "give it in PGPASSWORD, ~/.pgpass or a service file (docs/sharing.md)"
        )
