"""Agent identity and state: ``config.json``, ``private.key``, the local status, credential files.

State layout: ``<state_root>/.elydora/<agent_id>/`` (0700, physical). ``config.json`` (0600) holds
``org_id``, ``agent_id``, ``kid``, ``base_url``, ``agent_name`` (the provider id) and, for a server-bound
agent, ``token``. A local agent (the default) has ``"base_url": null`` and ``"org_id": "local"``; its
status lives in ``status.json`` (0600, ``{"status": ..., "updated_at": ..., "reason": ...}``) and is changed
by ``elydora agent freeze|unfreeze|revoke``.
"""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from elydora_config import _platform, files, keys
from elydora_config.errors import ConfigError, PathLike, UnsafePathError
from elydora_config.keys import decode_private_seed
from elydora_config.records import record

from .readpass import DIRECT, Reads

# Re-exported: the runtime and the installer name the state files through this module.
from .statefiles import *  # noqa: F403
from .statefiles import (
    CHAIN_STATE,
    CONFIG,
    CONFIG_KEYS,
    CONFIG_LIMIT,
    LEDGER,
    OUTBOX,
    PRIVATE_KEY,
    SECRET_LIMIT,
    SPOOL,
    STATE_DIR_NAME,
    STATUS,
    STATUSES,
    check_agent_id,
)

if TYPE_CHECKING:  # cryptography is imported by the functions that handle keys: status and hooks never load it
    from typing import Any

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

if TYPE_CHECKING:
    from elydora_config import Transaction

_CONFIG_KEYS = CONFIG_KEYS
LEFTOVER_STATE = (PRIVATE_KEY, STATUS, LEDGER, SPOOL, CHAIN_STATE, OUTBOX)
"""Files of an identity or its records: in a directory without ``config.json`` they belong to nobody we can name."""


class IdentityError(ConfigError):
    """An agent's identity files are missing, malformed, or do not belong together."""


def state_dir(state_root: PathLike) -> str:
    return os.path.join(os.path.abspath(os.fspath(state_root)), STATE_DIR_NAME)


def agent_dir(state_root: PathLike, agent_id: str) -> str:
    return os.path.join(state_dir(state_root), check_agent_id(agent_id))


def validate_base_url(url: str) -> str:
    """An absolute http(s) URL without credentials, query, fragment, whitespace or backslash."""
    if any(c.isspace() for c in url) or "\\" in url:
        raise IdentityError(None, "base URL must not contain whitespace or backslashes")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise IdentityError(None, "base URL must be an absolute http:// or https:// URL")
    if parts.username is not None or parts.password is not None:
        raise IdentityError(None, "base URL must not contain credentials")
    if parts.query or parts.fragment or url.endswith(("?", "#")):
        raise IdentityError(None, "base URL must not have a query or fragment")
    try:
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        raise IdentityError(None, "base URL has an invalid port") from None
    return url.rstrip("/")


@record(frozen=True)
class AgentConfig:
    org_id: str
    agent_id: str
    kid: str
    base_url: str | None
    agent_name: str
    token: str | None = None

    @property
    def is_local(self) -> bool:
        return self.base_url is None

    def to_bytes(self) -> bytes:
        data: dict[str, Any] = {
            "org_id": self.org_id,
            "agent_id": self.agent_id,
            "kid": self.kid,
            "base_url": self.base_url,
            "agent_name": self.agent_name,
        }
        if self.token is not None:
            data["token"] = self.token
        return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")

    def public_dict(self) -> dict[str, Any]:
        """Everything but the token (for display)."""
        return {
            "org_id": self.org_id,
            "agent_id": self.agent_id,
            "kid": self.kid,
            "base_url": self.base_url,
            "agent_name": self.agent_name,
            "has_token": self.token is not None,
        }


def parse_config(data: bytes, path: PathLike | None = None) -> AgentConfig:
    """Strictly parse ``config.json``: only the known keys, non-empty strings, a valid base URL or null."""
    try:
        raw = json.loads(files.decode_text(data, path), object_pairs_hook=_no_duplicates)
    except ValueError as exc:
        raise IdentityError(path, f"is not valid JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise IdentityError(path, "must hold a JSON object")
    unknown = set(raw) - set(_CONFIG_KEYS)
    if unknown:
        raise IdentityError(path, f"has unknown keys: {', '.join(sorted(unknown))}")
    for key in ("org_id", "agent_id", "kid", "agent_name"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise IdentityError(path, f"{key} must be a non-empty string")
    base_url = raw.get("base_url")
    if base_url is not None:
        if not isinstance(base_url, str):
            raise IdentityError(path, "base_url must be a string or null")
        base_url = validate_base_url(base_url)
    token = raw.get("token")
    if token is not None and (not isinstance(token, str) or not token):
        raise IdentityError(path, "token must be a non-empty string")
    check_agent_id(raw["agent_id"])
    return AgentConfig(raw["org_id"], raw["agent_id"], raw["kid"], base_url, raw["agent_name"], token)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


def read_config(directory: PathLike, *, reads: Reads = DIRECT) -> AgentConfig:
    """The agent's ``config.json``; read and parsed once in a read-only pass (:class:`~.readpass.ReadPass`):
    status checks it for the identity and again for the server binding."""
    path = os.path.join(os.fspath(directory), CONFIG)
    return reads.kept(("agent config", path), lambda: _read_config(directory, path, reads))


def _read_config(directory: PathLike, path: str, reads: Reads) -> AgentConfig:
    data = reads.read_physical(path, max_bytes=CONFIG_LIMIT)
    if data is None:
        raise IdentityError(path, "is missing (create the agent with `elydora agent create`)")
    config = parse_config(data, path)
    if config.agent_id != os.path.basename(os.path.abspath(os.fspath(directory))):
        raise IdentityError(path, "agent_id does not match its directory")
    return config


def read_private_key(directory: PathLike) -> Ed25519PrivateKey:
    path, text = _private_key_text(directory)
    return keys.decode_private_key(text, path=path)


def check_private_key(directory: PathLike, *, reads: Reads = DIRECT) -> None:
    """Raise when the agent's private key is missing or not one canonical key (no cryptography needed: every
    32-byte seed is an Ed25519 key)."""
    path, text = _private_key_text(directory, reads)
    decode_private_seed(text, path=path)


def _private_key_text(directory: PathLike, reads: Reads = DIRECT) -> tuple[str, str]:
    path = os.path.join(os.fspath(directory), PRIVATE_KEY)
    text = reads.read_physical(path, max_bytes=SECRET_LIMIT, text=True)
    if text is None:
        raise IdentityError(path, "is missing")
    return path, text


def key_id(key: Ed25519PrivateKey) -> str:
    """The local key id: ``local-`` + 16 base64url characters of SHA-256 of the raw public key."""
    from cryptography.hazmat.primitives import serialization

    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    import hashlib  # here, not at the top: ``status`` reads identities but computes no key id

    return "local-" + keys.b64url_encode(hashlib.sha256(raw).digest())[:16]


def read_secret_file(path: PathLike, what: str) -> str:
    """One UTF-8 line (at most 64 KiB) from an owner-only regular file; the text never enters messages."""
    result = files.read_physical_stat(path, max_bytes=SECRET_LIMIT)
    if result is None:
        raise IdentityError(path, f"{what} file does not exist")
    if not _platform.is_private(result.stat):
        raise UnsafePathError(path, f"{what} file is accessible by other users; run chmod 600 on it")
    text = files.decode_text(result.data, path)
    body = text[:-1] if text.endswith("\n") else text
    if body.endswith("\r"):
        body = body[:-1]
    if not body or "\n" in body or "\r" in body:
        raise IdentityError(path, f"{what} file must hold exactly one non-empty line")
    if body != body.strip():
        raise IdentityError(path, f"{what} file has leading or trailing whitespace")
    return body


def status_bytes(status: str, reason: str | None, now: float | None = None) -> bytes:
    if status not in STATUSES:
        raise ValueError(f"unknown status {status!r}")
    stamp = int(now if now is not None else time.time())
    data = {"status": status, "updated_at": stamp, "reason": reason}
    return (json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8")


def read_local_status(directory: PathLike) -> str:
    return read_status_file(os.path.join(os.fspath(directory), STATUS))


def read_status_file(path: str) -> str:
    """The status of a ``status.json``-shaped file (a local status, or a system-scope policy file)."""
    data = files.read_physical(path, max_bytes=CONFIG_LIMIT)
    if data is None:
        raise IdentityError(path, "is missing")
    try:
        raw = json.loads(files.decode_text(data, path))
    except ValueError:
        raise IdentityError(path, "is not valid JSON") from None
    status = raw.get("status") if isinstance(raw, dict) else None
    if status not in STATUSES:
        raise IdentityError(path, "has no valid status")
    return str(status)


def refuse_leftover_state(directory: PathLike, *, adopt: tuple[str, ...] = ()) -> None:
    """A directory holding another identity's key, status or records but no config.json would mix two chains.

    ``adopt`` names files the new identity takes over (first use under system scope: the events the audit
    spooled before the identity existed)."""
    present = sorted(
        name for name in LEFTOVER_STATE if name not in adopt and os.path.lexists(os.path.join(directory, name))
    )
    if present:
        raise IdentityError(
            directory, f"holds state of an earlier agent ({', '.join(present)}) but no config.json; remove it first"
        )


def stage_new_identity(
    tx: Transaction, directory: PathLike, config: AgentConfig, key: Ed25519PrivateKey, *, adopt: tuple[str, ...] = ()
) -> None:
    """Stage a new identity in ``tx``: ``private.key``, ``config.json`` and, for a local agent, ``status.json``
    (active). The one way identities are created (``agent create``, ``install`` and a system-scope user's first
    use); leftovers other than ``adopt`` are refused."""
    refuse_leftover_state(directory, adopt=adopt)
    tx.write(os.path.join(directory, PRIVATE_KEY), (keys.encode_private_key(key) + "\n").encode("ascii"), mode=0o600)
    tx.write(os.path.join(directory, CONFIG), config.to_bytes(), mode=0o600)
    if config.is_local:
        tx.write(os.path.join(directory, STATUS), status_bytes("active", None), mode=0o600)
