"""The discovery document of ``elydora hooks capabilities``.

It has the shape of the published ``agent-hooks/v1`` capability document: the flags of this CLI, the one
hook contract it speaks (``neutral-v1``) and one entry per provider adapter (every agent in the catalog,
then the ``generic`` fallback that only the neutral contract serves). Features this tool does not have
(an MCP server, a runtime-policy command) are ``null``. Building it reads ``catalog.json`` and the
package metadata, nothing else: no editor, no provider module, no key material.
"""

from __future__ import annotations

import json
from importlib import metadata
from typing import Any

from .. import __version__, catalog
from .contract import (
    ADAPTERS,
    CONTRACT_VERSION,
    EFFECTS,
    EVENTS,
    GATED_EVENTS,
    INPUT_ENCODING,
    MAX_INPUT_BYTES,
    OUTCOMES,
    OUTPUT_ENCODING,
    SELECTOR,
    SELECTOR_ENV,
)

API_VERSION = "coding-ethos.agent-hooks/v1"
DISTRIBUTION = "elydora-config"
HOOK_COMMAND = f"elydora hook --contract {SELECTOR}"


def runtime_version() -> str:
    """The installed distribution's version, else the package's ``__version__``."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return __version__


def hook_contract() -> dict[str, Any]:
    return {
        "contract_version": CONTRACT_VERSION,
        "selector": SELECTOR,
        "input_encoding": INPUT_ENCODING,
        "output_encoding": OUTPUT_ENCODING,
        "events": list(EVENTS),
        "outcomes": list(OUTCOMES),
        "effects": list(EFFECTS),
        "max_input_bytes": MAX_INPUT_BYTES,
        "selector_env": SELECTOR_ENV,
        "gated_events": sorted(GATED_EVENTS),
    }


def _template(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace('"{message}"', "<message>")


def deny_shape(guard: catalog.GuardFacts) -> str:
    """How the agent is told that a tool call is blocked, e.g. ``exit 2; reason on stderr``."""
    parts = [f"exit {guard.deny_exit_code}"]
    if guard.deny_stdout_template is not None:
        shown = _template(guard.deny_stdout_template).replace('"{stderr}"', "<stderr line>")
        parts.append(f"stdout {shown}")
    parts.append("reason on stderr")
    return "; ".join(parts)


def _adapter(facts: catalog.Provider) -> dict[str, Any]:
    events = list(facts.events.hooked)
    recorded = "signed audit record" + (" of the call before it runs" if facts.events.records_intent else "")
    entry: dict[str, Any] = {
        "provider": facts.id,
        "display_name": facts.display_name,
        "coverage": "full",
        "native_files": [facts.config.default_path],
        "hook_events": events,
        "block_response_shape": deny_shape(facts.guard),
        "settings_target": facts.config.default_path,
        "supported": [
            f"{facts.events.pre_tool} block when the agent is frozen or revoked",
            *(f"{event} {recorded}" for event in facts.events.audit_events),
            f"{SELECTOR} hook contract (--provider {facts.id})",
        ],
        "failure_mode": facts.guard.failure_mode,
    }
    contract_name = next((name for name, pid in ADAPTERS.items() if pid == facts.id), None)
    if contract_name is not None:
        entry["contract_provider"] = contract_name
    return entry


def _generic() -> dict[str, Any]:
    return {
        "provider": "generic",
        "display_name": "Generic supervisor",
        "coverage": "unsupported",
        "native_files": [],
        "hook_events": [],
        "block_response_shape": f"{SELECTOR} document: decision deny, effect block, exit 1",
        "settings_target": "none",
        "supported": [f"{SELECTOR} hook contract (--agent-id names the agent)"],
        "unsupported": ["native hook settings generation", "provider-native block response"],
        "failure_mode": "supervisor",
    }


def document() -> dict[str, Any]:
    """The capability document (keys in the published order; our additions after them)."""
    return {
        "api_version": API_VERSION,
        "runtime_version": runtime_version(),
        "settings_root_flag": "--root",
        "repository_root_flag": "--repo-root",
        "state_root_flag": "--state-root",
        "mcp_command_flag": None,
        "hook_timeout_flag": "--hook-timeout-seconds",
        "runtime_policy_command": None,
        "hook_contracts": [hook_contract()],
        "providers": [*(_adapter(p) for p in catalog.providers()), _generic()],
        "supports_private_overlay": True,
        "hook_command": HOOK_COMMAND,
        "agent_id_flag": "--agent-id",
        "provider_flag": "--provider",
    }


def render() -> bytes:
    """The document as printed: two-space indented UTF-8 JSON and a final newline."""
    return (json.dumps(document(), indent=2, ensure_ascii=False) + "\n").encode("utf-8")
