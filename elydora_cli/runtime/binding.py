"""Checking a server binding before ``agent create --base-url`` writes it.

The agent the server returns for ``GET /v1/agents/{id}`` must match what the identity will sign with:
its organisation (the server replaces a record's ``org_id`` with the token's org before checking the
signature, so a wrong ``--org-id`` makes every record ``INVALID_SIGNATURE``), the ``kid`` (registered, and
active: a revoked key can never be re-activated, it needs a new agent identity), and the registered public
key (the private key given must be its pair). The token's role is checked with a harmless request: an empty
``POST /v1/operations``, which the server refuses either for the role (403 ``FORBIDDEN``: records would never
be accepted) or as invalid (400: the role suffices); nothing is stored and no nonce is used.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from elydora_config.records import field, record

from . import client


@record
class Binding:
    """The outcome: ``problem`` refuses the binding; ``warnings`` do not; ``agent`` primes the cache."""

    problem: str | None = None
    warnings: list[str] = field(default_factory=list)
    agent: client.Response | None = None


def _raw_key(text: Any) -> bytes | None:
    if not isinstance(text, str):
        return None
    for decode in (base64.urlsafe_b64decode, base64.b64decode):
        try:
            raw = decode(text + "=" * (-len(text) % 4))
        except (binascii.Error, ValueError):
            continue
        if len(raw) == 32:
            return raw
    return None


def compare(body: Any, org_id: str, kid: str, key: Ed25519PrivateKey) -> str | None:
    """Why the server's agent cannot work with this org, kid and private key; ``None`` when it can."""
    agent = body.get("agent") if isinstance(body, dict) else None
    keys = body.get("keys") if isinstance(body, dict) else None
    if not isinstance(agent, dict) or not isinstance(keys, list):
        return "the server's answer for the agent has no agent and keys"
    if agent.get("org_id") is not None and agent.get("org_id") != org_id:
        return f"--org-id {org_id!r} does not match the agent's organisation {agent.get('org_id')!r} on the server"
    if agent.get("status") == "revoked":
        return "the agent is revoked on the server; create a new agent identity there"
    mine = [k for k in keys if isinstance(k, dict) and k.get("kid") == kid]
    if not mine:
        known = ", ".join(sorted(str(k.get("kid")) for k in keys if isinstance(k, dict))) or "none"
        return f"--kid {kid!r} is not registered for this agent (registered: {known})"
    if any(k.get("status") != "active" for k in mine):
        return f"key {kid!r} is {mine[0].get('status')} on the server; a revoked key needs a new agent identity"
    ours = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    registered = [_raw_key(k.get("public_key")) for k in mine]
    if all(raw is not None and raw != ours for raw in registered):
        return f"the private key is not the one registered for {kid!r} (its public key differs)"
    return None


def _role_check(base_url: str, token: str) -> tuple[str | None, str | None]:
    """(problem, warning) of an empty ``POST /v1/operations`` made only to learn the token's role."""
    try:
        response = client.post_operation(base_url, token, {}, timeout=client.GET_TIMEOUT)
    except client.TransportError:
        return None, "could not check the token's role (server unreachable); records may be refused later"
    if response.status == 403 or response.code == "FORBIDDEN":
        return "the token may read the agent but not submit records (403 FORBIDDEN on POST /v1/operations)", None
    if response.status == 401:
        return "the server refuses the token for submitting records (401 UNAUTHORIZED)", None
    if response.status in (400, 422):
        return None, None
    return None, f"could not check the token's role (the server answered {response.status})"


def check(base_url: str, token: str, agent_id: str, org_id: str, kid: str, key: Ed25519PrivateKey) -> Binding:
    try:
        response = client.get_agent(base_url, token, agent_id)
    except client.TransportError:
        return Binding(warnings=["could not reach the server to check the binding; it is unchecked"])
    if response.status == 401:
        return Binding("the server refuses the token (401 UNAUTHORIZED)")
    if response.status == 403:
        return Binding(f"the token may not read agent {agent_id!r} (403 {response.code or 'FORBIDDEN'})")
    if response.status == 404:
        return Binding(f"agent {agent_id!r} does not exist on the server (404); register it there first")
    if not response.ok:
        return Binding(warnings=[f"could not check the binding (the server answered {response.status})"])
    problem = compare(response.body, org_id, kid, key)
    if problem is not None:
        return Binding(problem)
    role_problem, warning = _role_check(base_url, token)
    if isinstance(response.body, dict) and response.body.get("agent", {}).get("status") == "frozen":
        warning = warning or "the agent is frozen on the server: the guard blocks every tool call until unfrozen"
    return Binding(role_problem, [warning] if warning else [], response)
