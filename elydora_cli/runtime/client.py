"""The two Elydora server calls the runtime makes: submit an operation, read an agent's status.

Every call carries ``Authorization: Bearer <token>`` when a token is configured; the token never appears
in an exception or log message, and redirects are not followed (a 3xx is an answer like any other).

The runtime's background processes inherit the agent's environment (an agent's settings can put any variable
into its hooks'), so nothing there may redirect a call or re-trust the network: proxy variables
(``https_proxy``, ``http_proxy``, ``all_proxy``...) are not honoured, and TLS is verified against the trust
store the interpreter was built with (OpenSSL's compiled-in paths, else ``certifi``), never against a file or
directory ``SSL_CERT_FILE``/``SSL_CERT_DIR`` names. Otherwise a proxy and a certificate of the agent's choosing
could answer the status query "active" for a frozen agent, or take its records.
Non-2xx answers come back as a :class:`Response` with the server's error ``code``/``message`` and a parsed
``Retry-After``; transport failures raise :class:`TransportError`.
"""

from __future__ import annotations

import email.utils
import functools
import json
import os
import ssl
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import quote

from elydora_config.records import record

POST_TIMEOUT = 5.0
GET_TIMEOUT = 3.0
MAX_RESPONSE = 1 << 20


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Never follow a redirect: the bearer token must not travel to another origin."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def tls_context() -> ssl.SSLContext:
    """Certificate verification against the interpreter's own trust store, whatever the environment names."""
    paths = ssl.get_default_verify_paths()
    cafile = paths.openssl_cafile if os.path.isfile(paths.openssl_cafile) else None
    capath = paths.openssl_capath if os.path.isdir(paths.openssl_capath) else None
    if cafile is None and capath is None:
        try:
            import certifi  # type: ignore[import-not-found,unused-ignore]  # no usable compiled-in store

            cafile = certifi.where()
        except ImportError:
            return ssl.create_default_context()
    return ssl.create_default_context(cafile=cafile, capath=capath)


@functools.cache
def _opener() -> urllib.request.OpenerDirector:
    """The opener of every request, built by the first one: loading the trust store is the costliest step of
    importing this module, and a command that never asks a server (``agent freeze`` of a local agent, ``--help``)
    must not pay for it."""
    return urllib.request.build_opener(
        _NoRedirect,
        urllib.request.ProxyHandler({}),  # no proxy from the environment (see the module docstring)
        urllib.request.HTTPSHandler(context=tls_context()),
    )


class TransportError(Exception):
    """The server could not be reached or answered unreadably (no HTTP status to act on)."""


@record(frozen=True)
class Response:
    status: int
    body: Any
    retry_after: float | None = None
    server_time: float | None = None  # the server's clock (its Date header), epoch seconds

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def code(self) -> str | None:
        error = self.body.get("error") if isinstance(self.body, dict) else None
        return str(error.get("code")) if isinstance(error, dict) and error.get("code") else None

    @property
    def message(self) -> str:
        error = self.body.get("error") if isinstance(self.body, dict) else None
        return str(error.get("message", "")) if isinstance(error, dict) else ""


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date); ``None`` if absent."""
    if not value:
        return None
    text = value.strip()
    if text.isdigit():
        return float(int(text))
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (now if now is not None else time.time()))


def parse_date(value: str | None) -> float | None:
    """Epoch seconds of an HTTP ``Date`` header, or ``None``."""
    if not value:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError):
        return None
    return None if when.tzinfo is None else when.timestamp()


def _headers(token: str | None, *, body: bool) -> dict[str, str]:
    # English messages: only PREV_HASH_MISMATCH's message is read, and only for its quoted hash.
    headers = {"Accept": "application/json", "Accept-Language": "en", "User-Agent": "elydora-config-runtime"}
    if body:
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return headers


def _call(request: urllib.request.Request, timeout: float) -> Response:
    try:
        with _opener().open(request, timeout=timeout) as reply:
            body = _decode(reply.read(MAX_RESPONSE)) if _is_json(reply.headers) else None
            return Response(reply.status, body, None, parse_date(reply.headers.get("Date")))
    except urllib.error.HTTPError as exc:
        try:
            raw = exc.read(MAX_RESPONSE)
        except OSError:
            raw = b""
        headers = exc.headers
        retry = parse_retry_after(headers.get("Retry-After") if headers else None)
        return Response(exc.code, _decode(raw), retry, parse_date(headers.get("Date") if headers else None))
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise TransportError(f"{request.get_method()} {request.full_url}: {reason}") from None


def _is_json(headers: Any) -> bool:
    """A success answer counts only as JSON (a maintenance page is ``text/html``)."""
    kind = str(headers.get("Content-Type", "")) if headers else ""
    return kind.split(";")[0].strip().lower() == "application/json"


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None


def post_operation(
    base_url: str, token: str | None, record: dict[str, Any], *, timeout: float = POST_TIMEOUT
) -> Response:
    body = json.dumps(record, separators=(",", ":")).encode("ascii")
    request = urllib.request.Request(
        f"{base_url}/v1/operations", data=body, method="POST", headers=_headers(token, body=True)
    )
    return _call(request, timeout)


def get_agent(base_url: str, token: str | None, agent_id: str, *, timeout: float = GET_TIMEOUT) -> Response:
    url = f"{base_url}/v1/agents/{quote(agent_id, safe='')}"
    return _call(urllib.request.Request(url, method="GET", headers=_headers(token, body=False)), timeout)


def get_jwks(base_url: str, *, timeout: float = GET_TIMEOUT) -> Response:
    """The server's public receipt keys (``/.well-known/elydora/jwks.json``; no token needed)."""
    url = f"{base_url}/.well-known/elydora/jwks.json"
    return _call(urllib.request.Request(url, method="GET", headers=_headers(None, body=False)), timeout)


def agent_status(response: Response, kid: str) -> str:
    """The status the guard must apply: the agent's, or ``revoked`` when ``kid`` is not an active key."""
    body = response.body if isinstance(response.body, dict) else {}
    agent = body.get("agent")
    status = agent.get("status") if isinstance(agent, dict) else None
    if status not in ("active", "frozen", "revoked"):
        raise ValueError("the server's answer has no valid agent status")
    keys = body.get("keys")
    if isinstance(keys, list):
        mine = [k for k in keys if isinstance(k, dict) and k.get("kid") == kid]
        if not mine or any(k.get("status") != "active" for k in mine):
            return "revoked"
    return str(status)
