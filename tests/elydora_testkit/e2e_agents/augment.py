"""Auggie (Augment Code CLI): Augment's own API (``tests/e2e/fake_augment.py``) through ``AUGMENT_SESSION_AUTH``.

Auggie 0.36.0 runs hooks only when the server's ``/get-models`` answer turns its ``enable_hooks`` feature flag on.
The fake API decides that by the tenant URL it is reached through (``fake_augment.tenant_url``);
``tests/e2e/test_augment.py`` runs Auggie with the flag off.
"""

from __future__ import annotations

import json
from typing import Any

from e2e.fake_augment import tenant_url

from elydora_testkit.e2e_agents.shape import Agent, Json, no_config
from elydora_testkit.e2e_harness import Sandbox


def session_env(port: int, *, hooks: bool, overrides: bool = False) -> dict[str, str]:
    """An Augment login in the shape ``auggie login`` stores (``~/.augment/session.json``), for the fake API on
    ``port`` with the ``enable_hooks`` flag on or off (and client flag overrides allowed or not). Auggie refuses
    a session without ``scopes``."""
    tenant = tenant_url(port, hooks=hooks, overrides=overrides)
    auth = {"accessToken": "e2e-dummy-token", "tenantURL": tenant, "scopes": ["email"]}
    return {"AUGMENT_SESSION_AUTH": json.dumps(auth)}


def _env(sb: Sandbox, port: int) -> dict[str, str]:
    return session_env(port, hooks=True)


def _workspace_root(payload: Json) -> Any:
    """Auggie's payload has no ``cwd``: the project folder is its one workspace root."""
    roots = payload.get("workspace_roots")
    return roots[0] if isinstance(roots, list) and len(roots) == 1 else roots


ROW = Agent(
    id="augment", name="Auggie", shell_tool="launch-process", hook_tool="launch-process",
    post_keys=frozenset({"hook_event_name", "conversation_id", "workspace_roots", "tool_name", "tool_input",
                         "tool_output", "tool_error", "is_mcp_tool"}),
    configure=no_config, env=_env,
    argv=lambda exe: [exe, "--print", "--max-turns", "4", "Run echo hello"],
    config_files=(".augment/settings.json",),
    payload_cwd=_workspace_root,
)
