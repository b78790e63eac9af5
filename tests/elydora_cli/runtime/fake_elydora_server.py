"""A real HTTP Elydora server for tests: stdlib http.server in a thread on 127.0.0.1, free port.

It implements ``POST /v1/operations`` and ``GET /v1/agents/{id}`` with the checks of the real server, in
its order: token, fields and types, op_version, nonce length, ttl range, expiry, payload size, nonce replay,
agent status (403 AGENT_FROZEN), key status (403 KEY_REVOKED), signature (400 INVALID_SIGNATURE), chain
(400 PREV_HASH_MISMATCH). The signature is checked over the canonical JSON of the 14 signed fields.
The state (agents, chains, nonces, accepted records) outlives the HTTP listener, so a test can stop the
server and start it again on the same port. Faults can be queued: canned answers (e.g. 429 with
Retry-After) and "accept, then drop the connection without answering".
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from elydora_cli.runtime.jcs import canonicalize

GENESIS = "A" * 43
SIGNED = (
    "op_version", "operation_id", "org_id", "agent_id", "issued_at", "ttl_ms", "nonce", "operation_type",
    "subject", "action", "payload", "payload_hash", "prev_chain_hash", "agent_pubkey_kid",
)  # fmt: skip
PAYLOAD_LIMIT = 256 * 1024


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class Agent:
    org_id: str
    status: str = "active"
    keys: dict[str, tuple[str, Ed25519PublicKey]] = field(default_factory=dict)  # kid -> (status, key)
    head: str = GENESIS
    records: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ServerState:
    token: str
    agents: dict[str, Agent] = field(default_factory=dict)
    nonces: dict[str, float] = field(default_factory=dict)
    canned: deque[tuple[int, dict[str, Any], dict[str, str]]] = field(default_factory=deque)
    drop_after_accept: int = 0
    requests: list[tuple[str, str, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add_agent(self, agent_id: str, org_id: str, kid: str, public_key: Ed25519PublicKey) -> Agent:
        agent = Agent(org_id, keys={kid: ("active", public_key)})
        self.agents[agent_id] = agent
        return agent


def _error(status: int, code: str, message: str) -> tuple[int, dict[str, Any]]:
    return status, {"error": {"code": code, "message": message}}


def check_operation(state: ServerState, body: Any, now_ms: int) -> tuple[int, dict[str, Any]]:
    """The server's checks, in order; (status, answer). Accepting stores the record and moves the head."""
    if not isinstance(body, dict) or any(name not in body for name in (*SIGNED, "signature")):
        return _error(400, "VALIDATION_ERROR", "missing fields")
    types = {"issued_at": int, "ttl_ms": int, "payload": dict, "subject": dict, "action": dict}
    if any(not isinstance(body[k], t) or isinstance(body[k], bool) for k, t in types.items()):
        return _error(400, "VALIDATION_ERROR", "wrong field types")
    if body["op_version"] != "1.0":
        return _error(400, "UNSUPPORTED_VERSION", "op_version must be 1.0")
    if not isinstance(body["nonce"], str) or not 0 < len(body["nonce"]) <= 64:
        return _error(400, "VALIDATION_ERROR", "bad nonce")
    if not 1000 <= body["ttl_ms"] <= 300_000:
        return _error(400, "VALIDATION_ERROR", "ttl out of range")
    if body["issued_at"] + body["ttl_ms"] < now_ms:
        return _error(400, "OPERATION_EXPIRED", "issued_at + ttl_ms is in the past")
    if len(canonicalize(body["payload"])) > PAYLOAD_LIMIT:
        return _error(413, "PAYLOAD_TOO_LARGE", "payload exceeds 256 KiB")
    if state.nonces.get(body["nonce"], 0) >= now_ms:
        return _error(409, "NONCE_REPLAY", "nonce already used")
    agent = state.agents.get(body["agent_id"])
    if agent is None or agent.status != "active":
        return _error(403, "AGENT_FROZEN", "agent is frozen or revoked")
    key = agent.keys.get(body["agent_pubkey_kid"])
    if key is None or key[0] != "active":
        return _error(403, "KEY_REVOKED", "key is revoked")
    try:
        signed = canonicalize({k: body[k] for k in SIGNED})
        key[1].verify(base64.urlsafe_b64decode(body["signature"] + "=="), signed)
    except (InvalidSignature, ValueError):
        return _error(400, "INVALID_SIGNATURE", "signature does not verify")
    if body["prev_chain_hash"] != agent.head:
        message = f'Expected prev_chain_hash "{agent.head}", got "{body["prev_chain_hash"]}".'
        return _error(400, "PREV_HASH_MISMATCH", message)
    text = f"{body['prev_chain_hash']}|{body['payload_hash']}|{body['operation_id']}|{body['issued_at']}"
    agent.head = _b64(hashlib.sha256(text.encode()).digest())
    state.nonces[body["nonce"]] = body["issued_at"] + body["ttl_ms"]
    agent.records.append(dict(body, chain_hash=agent.head))
    return 202, {"receipt": {"operation_id": body["operation_id"], "chain_hash": agent.head}}


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _authorised(self) -> bool:
        return self.headers.get("Authorization") == f"Bearer {self.server.state.token}"

    def _send(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        state = self.server.state
        prefix = "/v1/agents/"
        with state.lock:
            state.requests.append(("GET", self.path, 0))
            if not self._authorised():
                return self._send(*_error(401, "UNAUTHORIZED", "missing or wrong token"))
            agent = state.agents.get(unquote(self.path[len(prefix) :])) if self.path.startswith(prefix) else None
            if agent is None:
                return self._send(*_error(404, "NOT_FOUND", "no such agent"))
            keys = [{"kid": kid, "status": status} for kid, (status, _k) in agent.keys.items()]
            return self._send(200, {"agent": {"status": agent.status, "org_id": agent.org_id}, "keys": keys})

    def do_POST(self) -> None:
        state = self.server.state
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with state.lock:
            if self.path != "/v1/operations":
                return self._send(*_error(404, "NOT_FOUND", "no such endpoint"))
            if not self._authorised():
                return self._send(*_error(401, "UNAUTHORIZED", "missing or wrong token"))
            if state.canned:
                status, body, headers = state.canned.popleft()
                state.requests.append(("POST", self.path, status))
                return self._send(status, body, headers)
            try:
                body = json.loads(raw)
            except ValueError:
                return self._send(*_error(400, "VALIDATION_ERROR", "body is not JSON"))
            status, answer = check_operation(state, body, time.time_ns() // 1_000_000)
            state.requests.append(("POST", self.path, status))
            if status == 202 and state.drop_after_accept > 0:
                state.drop_after_accept -= 1
                self.close_connection = True
                self.connection.shutdown(2)
                return None
            return self._send(status, answer)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int, state: ServerState) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.state = state


class FakeElydora:
    """``start()``/``stop()`` a listener on a fixed port over one :class:`ServerState`."""

    def __init__(self, state: ServerState) -> None:
        self.state = state
        self.port = 0
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeElydora:
        self._server = _Server(self.port, self.state)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05})
        self._thread.daemon = True
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
