"""What the agent itself loads, compared with what we wrote (probes that list hooks by event and command).

Codex's check needs its keys and trust, so its agent module compares itself; an agent whose introspection only
lists the hooks it loads (Grok: ``grok inspect --json``) is compared here: each of our entries must be listed
with its event and command, enabled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..plug.agentprobe import ProbeError
from ..plug.context import Context
from ..plug.contract import Finding
from ..plug.documents import Documents
from . import entries

if TYPE_CHECKING:
    from typing import Any

    from ..plug.provider import Provider


def loaded_findings(provider: Provider, docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    """Our entries the agent does not list as loaded and enabled (none when it cannot be asked)."""
    probe = ctx.probe
    if probe is None or not probe.compares_commands:
        return []
    try:
        listed = probe.listed()
    except ProbeError:
        return []  # the probe's report says the check was file-level only
    loaded = {(hook.event, hook.command) for hook in listed if hook.enabled}
    findings = []
    for entry in entries.installed(provider, docs, ctx, agent_id):
        command = _command(entry.handler)
        if (entry.event, command) not in loaded:
            findings.append(Finding(f"{probe.name} does not list our {entry.event} hook as loaded", entry.source))
    return findings


def _command(handler: Any) -> str | None:
    value = handler.get("command") if isinstance(handler, dict) else None
    return value if isinstance(value, str) else None
