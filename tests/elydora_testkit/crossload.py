"""What the cross-loading tests of Claude Code's entries share: the environments and payloads other agents
were seen to give those entries, a claudecode install frozen in a verify probe's scratch state, and running an
entry there as an agent does."""

from __future__ import annotations

import os
from pathlib import Path

from elydora_cli import statefiles
from elydora_cli.installer import operations, verify
from elydora_cli.plug.context import Context
from elydora_testkit.provider_cases import installed_commands, make_context, run_as_agent

GROK_ENV = {"GROK_HOOK_EVENT": "pre_tool_use", "GROK_HOOK_NAME": "claude", "CLAUDE_PROJECT_DIR": "/tmp"}
CLAUDE_ENV = {"CLAUDE_PROJECT_DIR": "/tmp", "CLAUDECODE": "1"}
COPILOT_PAYLOAD = b'{"sessionId":"s","timestamp":1,"cwd":"/tmp","toolName":"bash","toolArgs":{"x":true,"y":null}}'


def installed_frozen(tmp_path: Path, hook_command: str | None = None) -> tuple[Context, dict[str, list[str]], Path]:
    """claudecode installed (with ``hook_command`` when given), frozen in a verify probe directory (events
    spool there, no flusher starts); its guard and audit argv by role."""
    ctx = make_context(tmp_path, hook_command=hook_command) if hook_command else make_context(tmp_path)
    operations.install("claudecode", ctx)
    scratch = Path(verify.make_probe_dir(str(ctx.runtime_dir("claudecode")), "frozen")[1])
    argvs = {role: argv for event, role, argv in installed_commands("claudecode", ctx) if event != "PostToolUseFailure"}
    return ctx, argvs, scratch


def run_entry(argv: list[str], data: bytes, scratch: Path, env: dict[str, str]) -> tuple[int, bytes, bytes]:
    """``argv`` run as an agent runs it, against the probe's scratch state: exit code, stdout, stderr."""
    os.utime(scratch)  # a probe is honoured for PROBE_LIFETIME seconds after its last change
    name = scratch.name.removeprefix(statefiles.PROBE_PREFIX)
    done = run_as_agent(argv, data, {**env, statefiles.PROBE_ENV: name})
    return done.returncode, done.stdout, done.stderr
