"""Kiro CLI (v2 custom agent), on request only: our own agent file ``~/.kiro/agents/elydora-audit.json``.

Kiro CLI v2 runs the ``hooks`` of a custom agent only in sessions started with that agent
(``kiro-cli --agent elydora-audit``, or after ``/agent swap``): the default agent, and every other agent, stays
unguarded. So ``install --all`` never picks this provider (the catalog marks it ``on_request``), and status
says so in a note on every run. The v3 standalone hook file (provider ``kirocli``) guards every agent and is
the default. Our agent carries every tool (``"tools": ["*"]``) and the legacy MCP file, like the built-in
default agent; the file is ours (created by the install, deleted by the uninstall once nothing of the
user's is left in it). Handlers are flat, ``{"matcher": "*", "command", "timeout_ms"}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import catalog
from ..plug import defaults, hookfile
from ..plug.cmdforms import posix_command, powershell_call
from ..plug.common import catalog_events
from ..plug.context import Context
from ..plug.contract import Finding, Sources
from ..plug.documents import Documents
from ..plug.hookfile import HookFile
from ..plug.hookmap import HookMap
from ..plug.ownership import Ref, runtime_argv
from ..plug.schema import NONEMPTY_STR, NONNEG_INT, STR, HandlerSchema, MapSchema

if TYPE_CHECKING:
    from typing import Any

FACTS = catalog.provider("kiroagent")
AGENT_NAME = "elydora-audit"


def make_handler(ref: Ref, ctx: Context) -> dict[str, Any]:
    argv = runtime_argv(ref, ctx)
    command = powershell_call(argv) if ctx.windows else posix_command(argv)
    return {"matcher": "*", "command": command, "timeout_ms": ref.timeout}


HOOKS = HookMap(catalog_events(FACTS), make_handler, grouped=False, timeout_key="timeout_ms", unit="ms")
SCHEMA = MapSchema(
    HandlerSchema(
        by_type={"command": {"command": NONEMPTY_STR}},
        common={"matcher": STR, "timeout_ms": NONNEG_INT, "max_output_size": NONNEG_INT,
                "cache_ttl_seconds": NONNEG_INT},
        required={"command": ["command"]},
        default_type="command",
        open_keys=True,
    ),
    events=("agentSpawn", "userPromptSubmit", "preToolUse", "postToolUse", "stop"),
    unknown_events="keep",
    grouped=False,
)
FILE = HookFile(
    FACTS.id,
    HOOKS,
    SCHEMA,
    stamp={
        "name": AGENT_NAME,
        "description": "The default tool set, guarded and audited by Elydora",
        "tools": ["*"],
        "useLegacyMcpJson": True,
    },
)
ONLY_THIS_AGENT = (
    f"guards only the sessions started with `kiro-cli --agent {AGENT_NAME}`; the default agent and every other"
    " agent run unguarded and unaudited (install kirocli, the v3 hook file, to guard them all)"
)


def sources(ctx: Context) -> Sources:
    return Sources([FILE.target(ctx.home / ".kiro" / "agents" / f"{AGENT_NAME}.json")])


install, uninstall, _check = hookfile.plug(FILE)


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    """The entries' health, and always the note that only one agent's sessions are guarded."""
    return [*_check(docs, ctx, agent_id), Finding(ONLY_THIS_AGENT, next(iter(docs.targets)), severity="note")]


ROLES = HOOKS.events
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
ENV_SWITCHES = defaults.NO_ENV_SWITCHES
extra_runtime, installed_entries, agent_argv = defaults.hook_map_agent(HOOKS)

NOTES = (f"Start Kiro CLI with `kiro-cli --agent {AGENT_NAME}`: sessions of any other agent are not guarded.",)
