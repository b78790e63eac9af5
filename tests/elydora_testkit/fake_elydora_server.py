"""A real HTTP Elydora server for tests: stdlib http.server in a thread on 127.0.0.1, free port.

It follows the server's contract as observed (docs/runtime.md, "The server's contract"):

* ``POST /v1/operations`` checks, in order: token (401 UNAUTHORIZED), role (403 FORBIDDEN), fields and
  types (400 VALIDATION_ERROR), op_version, nonce length, ttl range, ``issued_at + ttl_ms`` against the
  server's own clock (400 TTL_EXPIRED), the UTF-8 size of ``JSON.stringify(payload)`` (400
  PAYLOAD_TOO_LARGE), nonce replay (400 REPLAY_DETECTED; the nonce is burnt from here on, even when a later
  check refuses the attempt), agent exists (404 UNKNOWN_AGENT), agent status (403 AGENT_FROZEN), key known
  (400 INVALID_SIGNATURE "Key ... not found"), key status (403 KEY_REVOKED), ``org_id`` overwritten with the
  token's org, signature (400 INVALID_SIGNATURE), chain (400 PREV_HASH_MISMATCH naming the expected hash);
  then ``202 {"receipt": {...}}`` signed with the server's own Ed25519 key.
* ``GET /v1/agents/{id}``: 200 with the agent (org, status) and its keys (kid, public key, status), 404
  UNKNOWN_AGENT, 401, 403 FORBIDDEN for a token without a role.
* ``GET /.well-known/elydora/jwks.json``: the server's public key (no token needed).
* Every answer carries a ``Date`` header from the server's clock (``clock_offset_ms`` skews it).

The state outlives the HTTP listener, so a test can stop the server and start it again on the same port.
Faults can be queued: canned answers (e.g. 429 with Retry-After), "accept, then drop the connection", and a
maintenance mode that answers ``200 text/html`` to everything.
"""

from __future__ import annotations

import base64
import email.utils
import hashlib
import json
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from elydora_cli.runtime.jcs import CanonicalizationError, canonicalize

GENESIS = "A" * 43
SIGNED = (
    "op_version", "operation_id", "org_id", "agent_id", "issued_at", "ttl_ms", "nonce", "operation_type",
    "subject", "action", "payload", "payload_hash", "prev_chain_hash", "agent_pubkey_kid",
)  # fmt: skip
RECEIPT_FIELDS = (
    "receipt_version", "receipt_id", "operation_id", "org_id", "agent_id", "server_received_at", "seq_no",
    "chain_hash", "queue_message_id",
)  # fmt: skip
PAYLOAD_LIMIT = 262_144
SERVER_KID = "elydora-test-key-1"
WRITER = "integration_engineer"
READER = "readonly_investigator"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def raw_public(key: Ed25519PublicKey) -> str:
    return _b64(key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))


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
    org_id: str = "org-1"
    role: str = WRITER
    agents: dict[str, Agent] = field(default_factory=dict)
    nonces: dict[str, int] = field(default_factory=dict)
    canned: deque[tuple[int, dict[str, Any], dict[str, str]]] = field(default_factory=deque)
    drop_after_accept: int = 0
    maintenance: bool = False
    refuse_tools: dict[str, tuple[int, str]] = field(default_factory=dict)  # payload tool_name -> refusal
    clock_offset_ms: int = 0
    requests: list[tuple[str, str, int]] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)
    key: Ed25519PrivateKey = field(default_factory=Ed25519PrivateKey.generate)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add_agent(self, agent_id: str, org_id: str, kid: str, public_key: Ed25519PublicKey) -> Agent:
        agent = Agent(org_id, keys={kid: ("active", public_key)})
        self.agents[agent_id] = agent
        return agent

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000 + self.clock_offset_ms

    def jwks(self) -> dict[str, Any]:
        key = {"kty": "OKP", "crv": "Ed25519", "kid": SERVER_KID, "x": raw_public(self.key.public_key())}
        return {"keys": [key]}


def _error(status: int, code: str, message: str) -> tuple[int, dict[str, Any]]:
    return status, {"error": {"code": code, "message": message}}


def _check_shape(body: Any, now_ms: int) -> tuple[int, dict[str, Any]] | None:
    if not isinstance(body, dict) or any(name not in body for name in (*SIGNED, "signature")):
        return _error(400, "VALIDATION_ERROR", "missing fields")
    types = {"issued_at": int, "ttl_ms": int, "payload": dict, "subject": dict, "action": dict}
    if any(not isinstance(body[k], t) or isinstance(body[k], bool) for k, t in types.items()):
        return _error(400, "VALIDATION_ERROR", "wrong field types")
    if body["op_version"] != "1.0":
        return _error(400, "VALIDATION_ERROR", "op_version must be 1.0")
    if not isinstance(body["nonce"], str) or not 0 < len(body["nonce"]) <= 64:
        return _error(400, "VALIDATION_ERROR", "bad nonce")
    if not 1000 <= body["ttl_ms"] <= 300_000:
        return _error(400, "VALIDATION_ERROR", "ttl out of range")
    if body["issued_at"] + body["ttl_ms"] < now_ms:
        return _error(400, "TTL_EXPIRED", "issued_at + ttl_ms is in the past")
    try:
        size = len(canonicalize(body["payload"]))  # JSON.stringify's size: JCS only reorders the members
    except CanonicalizationError:
        size = 0  # JavaScript reads such numbers as Infinity (stringified as null): the signature fails below
    if size > PAYLOAD_LIMIT:
        return _error(400, "PAYLOAD_TOO_LARGE", f"payload exceeds {PAYLOAD_LIMIT} bytes")
    return None


def _signature_ok(key: Ed25519PublicKey, body: dict[str, Any]) -> bool:
    try:
        signed = canonicalize({k: body[k] for k in SIGNED})
        key.verify(base64.urlsafe_b64decode(body["signature"] + "=="), signed)
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


def check_operation(state: ServerState, body: Any, now_ms: int) -> tuple[int, dict[str, Any]]:
    """The server's checks, in order; (status, answer). Accepting stores the record and moves the head."""
    refused = _check_shape(body, now_ms)
    if refused is not None:
        return refused
    if state.nonces.get(body["nonce"], 0) >= now_ms:
        return _error(400, "REPLAY_DETECTED", "nonce already used")
    state.nonces[body["nonce"]] = body["issued_at"] + body["ttl_ms"]  # burnt even if refused below
    refusal = state.refuse_tools.get(str(body["payload"].get("tool_name")))
    if refusal is not None:  # a test's permanent refusal of this record (e.g. a VALIDATION_ERROR)
        return _error(refusal[0], refusal[1], "refused by the test")
    agent = state.agents.get(body["agent_id"])
    if agent is None:
        return _error(404, "UNKNOWN_AGENT", f"Agent {body['agent_id']} not found")
    if agent.status != "active":
        return _error(403, "AGENT_FROZEN", "agent is frozen or revoked")
    key = agent.keys.get(body["agent_pubkey_kid"])
    if key is None:
        return _error(400, "INVALID_SIGNATURE", f"Key {body['agent_pubkey_kid']} not found for agent")
    if key[0] != "active":
        return _error(403, "KEY_REVOKED", "key is revoked")
    body = dict(body, org_id=state.org_id)  # the token's org, as the real server does
    if not _signature_ok(key[1], body):
        return _error(400, "INVALID_SIGNATURE", "signature does not verify")
    if body["prev_chain_hash"] != agent.head:
        message = f'Expected prev_chain_hash "{agent.head}", got "{body["prev_chain_hash"]}".'
        return _error(400, "PREV_HASH_MISMATCH", message)
    text = f"{body['prev_chain_hash']}|{body['payload_hash']}|{body['operation_id']}|{body['issued_at']}"
    agent.head = _b64(hashlib.sha256(text.encode()).digest())
    agent.records.append(dict(body, chain_hash=agent.head))
    return 202, {"receipt": make_receipt(state, body, len(agent.records), now_ms)}


def make_receipt(state: ServerState, body: dict[str, Any], seq_no: int, now_ms: int) -> dict[str, Any]:
    agent = state.agents[body["agent_id"]]
    fields = {
        "receipt_version": "1.0",
        "receipt_id": str(uuid.uuid4()),
        "operation_id": body["operation_id"],
        "org_id": state.org_id,
        "agent_id": body["agent_id"],
        "server_received_at": now_ms,
        "seq_no": seq_no,
        "chain_hash": agent.head,
        "queue_message_id": str(uuid.uuid4()),
    }
    receipt_hash = _b64(hashlib.sha256(canonicalize(fields)).digest())
    signature = _b64(state.key.sign(receipt_hash.encode()))
    return dict(fields, receipt_hash=receipt_hash, elydora_kid=SERVER_KID, elydora_signature=signature)


def agent_answer(state: ServerState, agent_id: str) -> tuple[int, dict[str, Any]]:
    agent = state.agents.get(agent_id)
    if agent is None:
        return _error(404, "UNKNOWN_AGENT", f"Agent {agent_id} not found")
    keys = [
        {"kid": kid, "agent_id": agent_id, "public_key": raw_public(key), "algorithm": "ed25519", "status": status}
        for kid, (status, key) in agent.keys.items()
    ]
    return 200, {"agent": {"agent_id": agent_id, "org_id": agent.org_id, "status": agent.status}, "keys": keys}


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def date_time_string(self, timestamp: float | None = None) -> str:
        return email.utils.formatdate(self.server.state.now_ms() / 1000, usegmt=True)

    def _role(self) -> str | None:
        """The token's role, or ``None`` when the token is missing or wrong."""
        state = self.server.state
        return state.role if self.headers.get("Authorization") == f"Bearer {state.token}" else None

    def _send(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        error = body.get("error")
        self.server.state.codes.append(error["code"] if isinstance(error, dict) else str(status))
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _maintenance(self) -> bool:
        if not self.server.state.maintenance:
            return False
        page = b"<html><body>Down for maintenance</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)
        return True

    def do_GET(self) -> None:
        state = self.server.state
        prefix = "/v1/agents/"
        with state.lock:
            state.requests.append(("GET", self.path, 0))
            if self._maintenance():
                return None
            if self.path == "/.well-known/elydora/jwks.json":
                return self._send(200, state.jwks())
            role = self._role()
            if role is None:
                return self._send(*_error(401, "UNAUTHORIZED", "missing or wrong token"))
            if role not in (READER, WRITER):
                return self._send(*_error(403, "FORBIDDEN", "insufficient role"))
            if not self.path.startswith(prefix):
                return self._send(*_error(404, "NOT_FOUND", "no such endpoint"))
            return self._send(*agent_answer(state, unquote(self.path[len(prefix) :])))

    def do_POST(self) -> None:
        state = self.server.state
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with state.lock:
            if self._maintenance():
                state.requests.append(("POST", self.path, 200))
                return None
            if self.path != "/v1/operations":
                return self._send(*_error(404, "NOT_FOUND", "no such endpoint"))
            role = self._role()
            if role is None:
                state.requests.append(("POST", self.path, 401))
                return self._send(*_error(401, "UNAUTHORIZED", "missing or wrong token"))
            if role != WRITER:
                state.requests.append(("POST", self.path, 403))
                return self._send(*_error(403, "FORBIDDEN", "insufficient role"))
            if state.canned:
                status, body, headers = state.canned.popleft()
                state.requests.append(("POST", self.path, status))
                return self._send(status, body, headers)
            try:
                body = json.loads(raw)
            except ValueError:
                return self._send(*_error(400, "VALIDATION_ERROR", "body is not JSON"))
            status, answer = check_operation(state, body, state.now_ms())
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
