"""What the cross-loading tests of Claude Code's entries share: the environments and payloads other agents
were seen to give those entries, a claudecode install frozen in verify's scratch state, and running an
entry there as an agent does."""

from __future__ import annotations

from pathlib import Path

from elydora_cli import identity
from elydora_cli.installer import operations
from elydora_cli.plug.context import Context
from elydora_testkit.provider_cases import installed_commands, make_context, run_as_agent

GROK_ENV = {"GROK_HOOK_EVENT": "pre_tool_use", "GROK_HOOK_NAME": "claude", "CLAUDE_PROJECT_DIR": "/tmp"}
CLAUDE_ENV = {"CLAUDE_PROJECT_DIR": "/tmp", "CLAUDECODE": "1"}
COPILOT_PAYLOAD = b'{"sessionId":"s","timestamp":1,"cwd":"/tmp","toolName":"bash","toolArgs":{"x":true,"y":null}}'


def installed_frozen(tmp_path: Path, hook_command: str | None = None) -> tuple[Context, dict[str, list[str]], Path]:
    """claudecode installed (with ``hook_command`` when given), frozen in a verify scratch directory (events
    spool there, no flusher starts); its guard and audit argv by role."""
    ctx = make_context(tmp_path, hook_command=hook_command) if hook_command else make_context(tmp_path)
    operations.install("claudecode", ctx)
    scratch = tmp_path / "scratch"
    scratch.mkdir(mode=0o700)
    (scratch / identity.STATUS).write_bytes(identity.status_bytes("frozen", None))
    (scratch / identity.STATUS).chmod(0o600)
    argvs = {role: argv for event, role, argv in installed_commands("claudecode", ctx) if event != "PostToolUseFailure"}
    return ctx, argvs, scratch


def run_entry(argv: list[str], data: bytes, scratch: Path, env: dict[str, str]) -> tuple[int, bytes, bytes]:
    """``argv`` run as an agent runs it, against the scratch state: exit code, stdout, stderr."""
    done = run_as_agent(argv, data, {**env, "ELYDORA_VERIFY_STATE": str(scratch)})
    return done.returncode, done.stdout, done.stderr
