"""A small OpenID Connect provider on 127.0.0.1 for tests of Streamlit's sign-in (``st.login``, ``st.user``).

It speaks the authorization-code flow the way Streamlit's Authlib client uses it, so a real
``streamlit run`` signs in against it with no external identity provider:

- ``GET /.well-known/openid-configuration``: the discovery document (``server_metadata_url``).
- ``GET /authorize``: no login page; it signs in at once as :attr:`OIDCProvider.next_user` and redirects
  back with a one-time code (honouring ``state``, ``nonce`` and a PKCE ``code_challenge``). With
  ``next_user = None`` the user "declines": the redirect carries ``error=access_denied``.
- ``POST /token``: checks the client's id and secret (HTTP Basic or form fields), the code, its
  ``redirect_uri`` and the PKCE verifier; returns an RS256-signed ``id_token`` and an ``access_token``.
- ``GET /jwks``, ``GET /userinfo`` (Bearer access token) and ``GET /logout`` (the ``end_session_endpoint``
  Streamlit's ``st.logout`` redirects to; it sends the browser on to ``post_logout_redirect_uri``).

A redirect URI must be registered before it is used (:meth:`OIDCProvider.auth_secrets` registers the
app's ``/oauth2callback``); an unregistered one gets a 400 page, never a redirect, as a real provider does.

Example::

    with oidc_provider() as provider:
        write_auth_secrets(tmp_path / "secrets.toml", provider, "http://127.0.0.1:8501")
        provider.next_user = {"email": "ada@example.com", "name": "Ada"}
        ...  # streamlit run app.py --secrets.files=<tmp_path>/secrets.toml
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

from joserfc import jwt
from joserfc.jwk import RSAKey

from tests.local_server import LocalServer

#: Who signs in when a test does not choose.
DEFAULT_USER = {"email": "ada@example.com", "name": "Ada Lovelace"}
#: How long an authorization code may wait for its exchange, in seconds.
CODE_LIFETIME = 60
#: Lifetime of the id and access tokens, in seconds.
TOKEN_LIFETIME = 3600


@dataclass
class _Grant:
    """What one ``/authorize`` granted, waiting for its code to be exchanged."""

    claims: dict[str, Any]
    redirect_uri: str
    nonce: str | None
    code_challenge: str | None
    code_challenge_method: str | None
    expires: float


class OIDCProvider(LocalServer):
    """An OpenID Connect provider with one registered client; start it with :func:`oidc_provider`."""

    def __init__(self, client_id: str = "evalcore-test", client_secret: str | None = None):
        self.client_id = client_id
        self.client_secret = client_secret or secrets.token_urlsafe(24)
        #: The claims of whoever signs in next (``email`` and ``name`` at least); None: the user declines.
        #: ``sub`` defaults to one derived from the e-mail, ``email_verified`` to True.
        self.next_user: dict[str, Any] | None = dict(DEFAULT_USER)
        #: Redirect URIs the client may use (:meth:`auth_secrets` adds the app's callback).
        self.redirect_uris: set[str] = set()
        #: The query of every ``/authorize`` request, in order (what the app asked for).
        self.authorize_requests: list[dict[str, str]] = []
        #: The e-mail of every successful code exchange, in order.
        self.sign_ins: list[str] = []
        #: The query of every ``/logout`` request, in order.
        self.logouts: list[dict[str, str]] = []
        self._key = RSAKey.generate_key(2048, parameters={"kid": "test-key", "use": "sig", "alg": "RS256"})
        self._grants: dict[str, _Grant] = {}
        self._access_tokens: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    @property
    def issuer(self) -> str:
        """The ``iss`` of its tokens, also the base of every endpoint."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def metadata_url(self) -> str:
        """The discovery document's URL: ``server_metadata_url`` in Streamlit's ``[auth]`` secrets."""
        return f"{self.issuer}/.well-known/openid-configuration"

    def metadata(self) -> dict[str, Any]:
        """The discovery document."""
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "userinfo_endpoint": f"{self.issuer}/userinfo",
            "jwks_uri": f"{self.issuer}/jwks",
            "end_session_endpoint": f"{self.issuer}/logout",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "profile"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "code_challenge_methods_supported": ["S256"],
            "claims_supported": ["iss", "aud", "exp", "iat", "nonce", "sub", "email", "email_verified", "name"],
        }

    def auth_secrets(self, app_url: str, cookie_secret: str | None = None) -> dict[str, str]:
        """The ``[auth]`` section that points a Streamlit app at this provider, registering its callback.

        Args:
            app_url: The app's base URL exactly as the browser opens it (``http://127.0.0.1:8501``):
                the callback must be on the same host, or the browser does not send the login's
                session cookie back and the sign-in is dropped.
            cookie_secret: Signs Streamlit's identity cookie; a random one by default.
        """
        redirect_uri = f"{app_url.rstrip('/')}/oauth2callback"
        self.redirect_uris.add(redirect_uri)
        return {
            "redirect_uri": redirect_uri,
            "cookie_secret": cookie_secret or secrets.token_urlsafe(32),
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "server_metadata_url": self.metadata_url,
        }

    def handler(self) -> type[BaseHTTPRequestHandler]:
        return _handler_for(self)

    def _authorize(self, query: dict[str, str]) -> tuple[int, dict[str, str], str]:
        """Answer ``/authorize``: (status, headers, body)."""
        self.authorize_requests.append(query)
        redirect_uri = query.get("redirect_uri", "")
        if query.get("client_id") != self.client_id:
            return 400, {}, f"unknown client_id {query.get('client_id')!r}"
        if redirect_uri not in self.redirect_uris:
            return 400, {}, f"redirect_uri {redirect_uri!r} is not registered (have {sorted(self.redirect_uris)})"
        reply: dict[str, str] = {"state": query["state"]} if "state" in query else {}
        if query.get("response_type") != "code":
            reply["error"] = "unsupported_response_type"
        elif "openid" not in query.get("scope", "").split():
            reply["error"] = "invalid_scope"
        elif query.get("code_challenge") and query.get("code_challenge_method", "plain") != "S256":
            reply["error"] = "invalid_request"
        elif self.next_user is None:
            reply["error"] = "access_denied"
        else:
            code = secrets.token_urlsafe(24)
            with self._lock:
                self._grants[code] = _Grant(
                    claims=dict(self.next_user),
                    redirect_uri=redirect_uri,
                    nonce=query.get("nonce"),
                    code_challenge=query.get("code_challenge"),
                    code_challenge_method=query.get("code_challenge_method"),
                    expires=time.time() + CODE_LIFETIME,
                )
            reply["code"] = code
        return 302, {"Location": f"{redirect_uri}?{urlencode(reply)}"}, ""

    def _token(self, form: dict[str, str], authorization: str | None) -> tuple[int, dict[str, Any]]:
        """Answer ``/token``: (status, JSON body)."""
        client_id, client_secret = form.get("client_id"), form.get("client_secret")
        if authorization and authorization.startswith("Basic "):
            client_id, _, client_secret = base64.b64decode(authorization[6:]).decode().partition(":")
        if client_id != self.client_id or client_secret != self.client_secret:
            return 401, {"error": "invalid_client"}
        if form.get("grant_type") != "authorization_code":
            return 400, {"error": "unsupported_grant_type"}
        with self._lock:
            grant = self._grants.pop(form.get("code", ""), None)
        if grant is None or grant.expires < time.time() or grant.redirect_uri != form.get("redirect_uri"):
            return 400, {"error": "invalid_grant"}
        if grant.code_challenge is not None and not _pkce_matches(grant.code_challenge, form.get("code_verifier")):
            return 400, {"error": "invalid_grant", "error_description": "PKCE verification failed"}
        access_token = secrets.token_urlsafe(24)
        claims = self._id_claims(grant)
        with self._lock:
            self._access_tokens[access_token] = claims
            self.sign_ins.append(str(claims.get("email")))
        id_token = jwt.encode({"alg": "RS256", "kid": self._key.kid}, claims, self._key)
        body = {
            "access_token": access_token,
            "token_type": "Bearer",
            "expires_in": TOKEN_LIFETIME,
            "scope": "openid email profile",
            "id_token": id_token,
        }
        return 200, body

    def _id_claims(self, grant: _Grant) -> dict[str, Any]:
        now = int(time.time())
        email = str(grant.claims.get("email", ""))
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "aud": self.client_id,
            "iat": now,
            "exp": now + TOKEN_LIFETIME,
            "sub": hashlib.sha256(email.encode()).hexdigest()[:24],
            "email_verified": True,
            **grant.claims,
        }
        if grant.nonce is not None:
            claims["nonce"] = grant.nonce
        return claims

    def _userinfo(self, authorization: str | None) -> tuple[int, dict[str, Any]]:
        token = (authorization or "").removeprefix("Bearer ")
        with self._lock:
            claims = self._access_tokens.get(token)
        if claims is None:
            return 401, {"error": "invalid_token"}
        return 200, {k: v for k, v in claims.items() if k not in {"iss", "aud", "iat", "exp", "nonce"}}

    def _logout(self, query: dict[str, str]) -> tuple[int, dict[str, str], str]:
        self.logouts.append(query)
        target = query.get("post_logout_redirect_uri")
        if target in self.redirect_uris:
            return 302, {"Location": target}, ""
        return 200, {}, "signed out"


def _pkce_matches(challenge: str, verifier: str | None) -> bool:
    if not verifier:
        return False
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode() == challenge


def _handler_for(provider: OIDCProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            """Tests read :class:`OIDCProvider`'s records, not a request log on stderr."""

        def do_GET(self) -> None:  # noqa: N802
            url = urlparse(self.path)
            query = {key: values[-1] for key, values in parse_qs(url.query).items()}
            if url.path == "/.well-known/openid-configuration":
                self._json(200, provider.metadata())
            elif url.path == "/jwks":
                self._json(200, {"keys": [provider._key.as_dict(private=False)]})
            elif url.path == "/authorize":
                self._reply(*provider._authorize(query))
            elif url.path == "/userinfo":
                self._json(*provider._userinfo(self.headers.get("Authorization")))
            elif url.path == "/logout":
                self._reply(*provider._logout(query))
            else:
                self._reply(404, {}, "not found")

        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
            form = {key: values[-1] for key, values in parse_qs(body).items()}
            if urlparse(self.path).path == "/token":
                self._json(*provider._token(form, self.headers.get("Authorization")))
            else:
                self._reply(404, {}, "not found")

        def _json(self, status: int, body: dict[str, Any]) -> None:
            self._reply(status, {"Content-Type": "application/json", "Cache-Control": "no-store"}, json.dumps(body))

        def _reply(self, status: int, headers: dict[str, str], body: str) -> None:
            data = body.encode()
            self.send_response(status)
            headers.setdefault("Content-Type", "text/plain; charset=utf-8")
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


@contextlib.contextmanager
def oidc_provider(client_id: str = "evalcore-test", client_secret: str | None = None) -> Iterator[OIDCProvider]:
    """A started :class:`OIDCProvider`, stopped on exit."""
    with OIDCProvider(client_id, client_secret) as provider:
        yield provider


def write_auth_secrets(path: Path, provider: OIDCProvider, app_url: str, extra: dict[str, Any] | None = None) -> Path:
    """Write a Streamlit ``secrets.toml`` whose ``[auth]`` section signs in through ``provider``.

    Point ``streamlit run`` at it with ``--secrets.files=<path>`` (which replaces the default
    ``~/.streamlit`` and ``./.streamlit`` secrets files, so the repository's own are never read).

    Args:
        path: Where to write the file (its folder is created).
        provider: The started provider; the app's callback is registered with it.
        app_url: The app's base URL exactly as the browser opens it (see :meth:`OIDCProvider.auth_secrets`).
        extra: Other top-level tables to write, e.g. ``{"evalcore": {"launchers": ["ada@example.com"]}}``;
            values are strings, numbers, booleans or lists of them.

    Returns:
        ``path``.
    """
    tables: dict[str, dict[str, Any]] = {"auth": provider.auth_secrets(app_url), **(extra or {})}
    lines: list[str] = []
    for table, values in tables.items():
        lines.append(f"[{table}]")
        # JSON scalars and arrays of them are valid TOML values (strings are basic strings).
        lines.extend(f"{key} = {json.dumps(value)}" for key, value in values.items())
        lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
