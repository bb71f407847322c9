"""Who may do what in the app: view, and change the store (launch, resume and delete runs, save uploads, pin
baselines).

The rules come from the deployment's settings (``st.secrets`` or the environment, read by the page and passed
in here as plain mappings) and apply to a :class:`Visitor`, built by the page from ``st.user`` and the
connection. Engine calls that change the store take an :class:`Access` and call :meth:`Access.require`, so a
page that forgets to hide a button still cannot spend the deployer's keys.

- With Streamlit's sign-in configured (an ``[auth]`` section), e-mail addresses and domains listed under
  ``[evalcore.access] launch`` may change the store; everyone else may only view (or, with
  ``view = "signed-in"``, must sign in first).
- Without it, a visitor on this machine may do everything, as before; a visitor from elsewhere may only view,
  unless the deployer opts in with ``launch = "everyone"``.
- Viewer mode (``EVALCORE_VIEWER``) refuses every change, whoever asks.

Nothing here imports streamlit.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from evalcore.core.errors import EvalcoreError

#: Environment variable (or top-level secret) that turns on viewer mode.
VIEWER_ENV = "EVALCORE_VIEWER"
#: Environment variable (or top-level secret) that says the app is deployed even when visitors look local,
#: e.g. behind a reverse proxy on the same machine that does not send ``X-Forwarded-For``.
DEPLOYED_ENV = "EVALCORE_DEPLOYED"
#: Environment variable that sets ``launch`` when the secrets do not: ``everyone``, ``signed-in`` or a
#: comma-separated list of e-mail addresses and ``@domains``.
LAUNCH_ENV = "EVALCORE_LAUNCH"

EVERYONE = "everyone"
SIGNED_IN = "signed-in"
_TRUE = {"1", "true", "yes", "on"}
_ENTRY = re.compile(r"[^@\s]*@[^@\s]+\.[^@\s]+")
_FORWARDING_HEADERS = ("x-forwarded-for", "forwarded", "x-real-ip")

Action = Literal["launch", "resume", "rescore", "align", "delete", "save", "pin"]
_VERBS: dict[str, str] = {
    "launch": "Launching a run",
    "resume": "Resuming a run",
    "rescore": "Rescoring a run",
    "align": "Aligning a judge",
    "delete": "Deleting a run",
    "save": "Saving a run",
    "pin": "Pinning a baseline",
}


class AccessDenied(EvalcoreError):
    """An action the deployment's roles forbid to this visitor."""


@dataclass(frozen=True)
class Visitor:
    """Who is asking: their sign-in (``st.user``) and whether they connect from this machine."""

    email: str | None = None
    name: str | None = None
    signed_in: bool = False
    #: Connected from this machine, not through a proxy: the app runs for its owner, as ``streamlit run``.
    local: bool = False
    #: Why a sign-in was refused (the provider says the address is not verified); None otherwise.
    refused: str | None = None

    @classmethod
    def from_user(
        cls, user: Mapping[str, Any] | None, ip_address: str | None, headers: Mapping[str, str] | None
    ) -> Visitor:
        """A visitor from ``st.user.to_dict()``, ``st.context.ip_address`` and ``st.context.headers``.

        Streamlit gives no IP address for a connection from localhost; a proxy in front of the app (a
        deployment) adds a forwarding header, so such a connection is not local however it arrives. A sign-in
        whose provider says ``email_verified: false`` is refused: anyone could have typed that address into
        the provider, so the visitor is signed out, with :attr:`refused` saying why.
        """
        user = user or {}
        lowered = {k.lower() for k in (headers or {})}
        local = _loopback(ip_address) and not any(h in lowered for h in _FORWARDING_HEADERS)
        email = user.get("email")
        if user.get("is_logged_in") and str(user.get("email_verified", True)).strip().lower() == "false":
            refused = (
                f"{str(email or '').strip().lower() or 'this sign-in'}: the sign-in provider says this address is "
                "not verified; verify it with the provider, then sign in again"
            )
            return cls(local=local, refused=refused)
        return cls(
            email=str(email).strip().lower() if email else None,
            name=str(user["name"]) if user.get("name") else None,
            signed_in=bool(user.get("is_logged_in")),
            local=local,
        )

    def label(self) -> str:
        """How the app names this visitor: e-mail, else name, else "a visitor"."""
        return self.email or self.name or "a visitor"

    def stamp(self) -> dict[str, str] | None:
        """What a run records of who launched it (``provenance.launched_by``): None unless signed in."""
        if not self.signed_in or not (self.email or self.name):
            return None
        return {k: v for k, v in (("email", self.email), ("name", self.name)) if v}


@dataclass(frozen=True)
class Policy:
    """The deployment's roles."""

    #: Streamlit's sign-in is configured (an ``[auth]`` section in the secrets).
    auth: bool = False
    #: Named providers of ``[auth]`` (``[auth.google]``…); empty when ``[auth]`` holds a single provider.
    providers: tuple[str, ...] = ()
    #: Who may view: everyone, or only signed-in visitors.
    view: Literal["everyone", "signed-in"] = "everyone"
    #: Who may change the store: "everyone", "signed-in", or e-mail addresses and ``@domain``s.
    launch: str | tuple[str, ...] = ()
    #: Viewer mode: nobody may change the store.
    viewer: bool = False
    #: Deployed: without sign-in, even a visitor that looks local may only view (unless launch is "everyone").
    deployed: bool = False
    #: Who may rate replies on the Rate page: "everyone", "signed-in", addresses and ``@domain``s; empty: who may
    #: change the store.
    rate: str | tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, secrets: Mapping[str, Any] | None, environ: Mapping[str, str]) -> Policy:
        """The roles from ``st.secrets`` (as a mapping) and the environment.

        Raises:
            EvalcoreError: ``[evalcore.access]`` holds a value of the wrong kind.
        """
        secrets = secrets or {}
        auth = secrets.get("auth")
        section = (secrets.get("evalcore") or {}).get("access") or {}
        if not isinstance(section, Mapping):
            raise EvalcoreError("secrets: [evalcore.access] must be a table")
        view = str(section.get("view", EVERYONE)).strip().lower()
        if view not in (EVERYONE, SIGNED_IN):
            raise EvalcoreError(f'secrets: [evalcore.access] view must be "{EVERYONE}" or "{SIGNED_IN}", not {view!r}')
        launch = section.get("launch", environ.get(LAUNCH_ENV, ""))
        return cls(
            auth=isinstance(auth, Mapping) and bool(auth),
            providers=_providers(auth),
            view=view,  # type: ignore[arg-type]
            launch=_launchers(launch),
            viewer=_flag(secrets.get(VIEWER_ENV), environ.get(VIEWER_ENV)),
            deployed=_flag(secrets.get(DEPLOYED_ENV), environ.get(DEPLOYED_ENV)),
            rate=_launchers(section.get("rate", ""), "rate"),
        )

    def listed(self, visitor: Visitor) -> bool:
        """Whether ``visitor``'s e-mail is on the launch list (an address, or its ``@domain``)."""
        if not visitor.email or isinstance(self.launch, str):
            return False
        domain = "@" + visitor.email.rpartition("@")[2]
        return visitor.email in self.launch or domain in self.launch


def _loopback(address: str | None) -> bool:
    """Whether a connection comes from this machine: no address (Streamlit gives none for ``127.0.0.1`` and
    ``::1``), or a loopback one in another spelling, as a server listening on every interface sees an IPv4
    client (``::ffff:127.0.0.1``)."""
    if address is None:
        return True
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return bool((mapped or ip).is_loopback)


def _providers(auth: Any) -> tuple[str, ...]:
    if not isinstance(auth, Mapping):
        return ()
    return tuple(name for name, value in auth.items() if isinstance(value, Mapping))


def _launchers(value: Any, key: str = "launch") -> str | tuple[str, ...]:
    if isinstance(value, str):
        word = value.strip().lower()
        if word in (EVERYONE, SIGNED_IN):
            return word
        value = [v for v in word.split(",") if v.strip()]
    if not isinstance(value, list | tuple):
        raise EvalcoreError(
            f'secrets: [evalcore.access] {key} must be "{EVERYONE}", "{SIGNED_IN}" or a list of e-mail '
            "addresses and @domains"
        )
    entries = []
    for item in value:
        entry = str(item).strip().lower()
        if "@" not in entry:  # "example.com" means the domain
            entry = "@" + entry
        if not _ENTRY.fullmatch(entry):
            raise EvalcoreError(f"secrets: [evalcore.access] {key}: {item!r} is not an e-mail address or a domain")
        entries.append(entry)
    return tuple(entries)


def _flag(secret: Any, env: str | None) -> bool:
    """A yes/no setting: the secret when the secrets name it (even to say no), else the environment."""
    value = secret if secret is not None else (env or "")
    return str(value).strip().lower() in _TRUE


@dataclass(frozen=True)
class Access:
    """A visitor under a policy: what they may do, and why not."""

    policy: Policy
    visitor: Visitor

    @classmethod
    def owner(cls, environ: Mapping[str, str] | None = None) -> Access:
        """The person running the app on their own machine, under the environment's viewer mode (tests,
        scripts)."""
        return cls(Policy.from_settings(None, environ or {}), Visitor(local=True))

    def may_view(self) -> bool:
        """Whether the visitor may see runs at all."""
        if self.policy.view == EVERYONE:
            return True
        return self.visitor.signed_in or (not self.policy.auth and self.visitor.local and not self.policy.deployed)

    def may_rate(self) -> bool:
        """Whether the visitor may store ratings on the Rate page (``[evalcore.access] rate``).

        A ``rate`` list names who may (addresses, ``@domains``, ``signed-in`` or ``everyone``); without one,
        whoever may change the store may rate. Viewer mode refuses it as every change.
        """
        policy, visitor = self.policy, self.visitor
        if policy.viewer:
            return False
        if not policy.rate:
            return self.may_change()
        if policy.rate == EVERYONE:
            return True
        if policy.rate == SIGNED_IN:
            return visitor.signed_in
        domain = "@" + (visitor.email or "").rpartition("@")[2]
        return visitor.signed_in and bool(visitor.email) and (visitor.email in policy.rate or domain in policy.rate)

    def may_change(self) -> bool:
        """Whether the visitor may launch, resume and delete runs, save uploads and pin baselines."""
        return self.why_not() is None

    def why_not(self) -> str | None:
        """Why the visitor may not change the store, in a sentence; None when they may."""
        policy, visitor = self.policy, self.visitor
        if policy.viewer:
            return f"viewer mode: {VIEWER_ENV} is set"
        if policy.launch == EVERYONE:
            return None
        if policy.auth:
            if not visitor.signed_in:
                return "sign in first"
            if policy.launch == SIGNED_IN or policy.listed(visitor):
                return None
            return f"{visitor.label()} is not on this deployment's launch list"
        if visitor.local and not policy.deployed:
            return None
        return 'this deployment is read-only (its owner can set [evalcore.access] launch = "everyone", or sign-in)'

    def require(self, action: Action) -> None:
        """Refuse ``action`` unless the visitor may change the store.

        Raises:
            AccessDenied: the roles forbid it; the message says why.
        """
        reason = self.why_not()
        if self.policy.viewer:
            raise AccessDenied(f"{_VERBS[action]} is turned off in this deployment ({reason}).")
        if reason is not None:
            raise AccessDenied(f"{_VERBS[action]} is not allowed here ({reason}).")
