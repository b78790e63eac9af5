"""The shape of one agent's row in the end-to-end suite, and the helpers rows share.

A row says how to point the real CLI at the fake model, run it headless, and read what it sent. The facts
(switches, headless commands, payload shapes) come from each agent's documentation and earlier offline runs
(their payloads are kept in ``fixtures/payloads/captured/``), and the suite checks them again against the
versions pinned in ``agents.lock.json``. Only the agent's own non-hook settings are written by a row (model,
base URL, auth, telemetry), as a user has them before installing; every hook entry comes from
``elydora install``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from elydora_testkit.e2e_harness import SYSTEM_PATH, Sandbox

# How the agent tells the model that our guard blocked the tool:
STDERR_TO_MODEL = "stderr"  # our guard's stderr line is in the tool result the model gets
DENIAL_WITH_REASON = "reason"  # the agent's own denial text (``denial_text``), then the reason our guard printed
TASK_ABORTED = "aborted"  # the agent ends the whole task; the model is not asked again

Json = dict[str, Any]
Reader = Callable[[Json], Any]


def write_json(path: Path, data: Json) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def no_config(sb: Sandbox, port: int) -> None:
    """For an agent configured through its environment (or its own setup command) only."""


def no_env(sb: Sandbox, port: int) -> dict[str, str]:
    return {}


def post_event_named(name: str) -> Callable[[Json], bool]:
    """The snake_case envelope's post-tool test: ``hook_event_name`` equals ``name``."""
    return lambda payload: payload.get("hook_event_name") == name


def tool_input_command(payload: Json) -> Any:
    return (payload.get("tool_input") or {}).get("command")


def member(name: str) -> Reader:
    return lambda payload: payload.get(name)


def no_call_id(payload: Json) -> Any:
    return None


_POST_TOOL_USE = post_event_named("PostToolUse")
_TOOL_NAME = member("tool_name")
_CWD = member("cwd")
_ERROR = member("error")


@dataclass(frozen=True)
class Agent:
    id: str
    name: str
    shell_tool: str  # the tool the model is offered and the fake model calls
    hook_tool: str  # the tool name the agent puts in its hook payloads
    post_keys: frozenset[str]  # top-level keys of the native post-tool payload (fixtures/payloads/captured/)
    configure: Callable[[Sandbox, int], None]  # the agent's own settings (not hooks)
    argv: Callable[[str], list[str]]  # headless command, given the executable
    env: Callable[[Sandbox, int], dict[str, str]]
    config_files: tuple[str, ...]  # where hook entries could live (relative to home): checked after uninstall
    block_feedback: str = STDERR_TO_MODEL
    denial_text: str = ""
    deny_reason: Callable[[str], str] | None = None  # the reason the model gets after denial_text, given the
    # agent id, when it is the guard's stdout reason rather than its stderr line
    setup_argv: Callable[[str, int], list[str]] | None = None  # a one-time setup command (e.g. `cline auth`)
    extra_run_args: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    # For an agent whose model is not the fake server (Qoder: a scripted answer file): the run's model requests,
    # in the fake model's log shape, read from what the agent left in the sandbox since the run started.
    model_log: Callable[[Sandbox, float], list[Json]] | None = None
    # Reading the native post-tool payload; the defaults read Claude Code's snake_case envelope.
    post_event_ok: Callable[[Json], bool] = _POST_TOOL_USE
    payload_tool: Reader = _TOOL_NAME
    payload_command: Reader = tool_input_command
    payload_cwd: Reader = _CWD
    payload_call_id: Reader = no_call_id  # the tool call id the agent got from the model, where it has one
    # An agent that reports a call our guard vetoed as a failed tool call (Kimi Code): the post-tool event it
    # sends for it, and how to read the error text (our guard's line) from that payload. ``None``: a blocked
    # call fires no post-tool hook and the ledger does not grow.
    block_record: str | None = None
    block_record_text: Reader = _ERROR
    # Seconds the fake model waits before answering after the tool call. An agent that ends its headless run by
    # killing post-tool hooks still running (Kimi Code) needs the time a real model's answer gives them.
    answer_delay: float = 0.0


def base_env(sandbox: Sandbox) -> dict[str, str]:
    return {
        "HOME": str(sandbox.home),
        "USER": "root",
        "LOGNAME": "root",
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "TMPDIR": str(sandbox.home / "tmp"),
        "PATH": SYSTEM_PATH,
    }


def run_env(agent: Agent, sandbox: Sandbox, port: int, path_prefix: list[str]) -> dict[str, str]:
    env = base_env(sandbox)
    env["PATH"] = ":".join([*path_prefix, SYSTEM_PATH])
    env.update(agent.env(sandbox, port))
    return env
