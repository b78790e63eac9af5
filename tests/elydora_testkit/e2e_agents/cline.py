"""Cline CLI: chat completions (SSE) set up by its own ``cline auth``; hook files, not entries."""

from __future__ import annotations

from typing import Any

from elydora_testkit.e2e_agents.shape import TASK_ABORTED, Agent, Json, no_config, no_env


def _result(payload: Json) -> Json:
    return payload.get("tool_result") or {}


def _command(payload: Json) -> Any:
    return ((_result(payload).get("input") or {}).get("commands") or [None])[0]


ROW = Agent(
    id="cline", name="Cline CLI", shell_tool="run_commands", hook_tool="run_commands",
    post_keys=frozenset({"clineVersion", "timestamp", "taskId", "sessionContext", "workspaceRoots",
                         "workspaceInfo", "userId", "agent_id", "parent_agent_id", "hookName", "iteration",
                         "tool_result", "postToolUse"}),
    configure=no_config, env=no_env,
    setup_argv=lambda exe, port: [exe, "auth", "-p", "openai-compatible", "-k", "e2e-dummy-key", "-m",
                                  "fake-model", "-b", f"http://127.0.0.1:{port}/v1"],
    argv=lambda exe: [exe, "--json", "--auto-approve", "true", "-t", "80", "Run echo hello"],
    config_files=(".cline/hooks",),
    block_feedback=TASK_ABORTED,
    post_event_ok=lambda payload: payload.get("hookName") == "tool_result",
    payload_tool=lambda payload: _result(payload).get("name"),
    payload_command=_command,
    payload_cwd=lambda payload: (payload.get("workspaceRoots") or [None])[0],
    payload_call_id=lambda payload: _result(payload).get("id"),
)
