"""Qwen Code: chat completions (SSE) through its environment."""

from __future__ import annotations

from elydora_testkit.e2e_agents.shape import Agent, member, write_json
from elydora_testkit.e2e_harness import Sandbox


def _configure(sb: Sandbox, port: int) -> None:
    write_json(sb.home / ".qwen" / "settings.json", {
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False},
    })


def _env(sb: Sandbox, port: int) -> dict[str, str]:
    return {
        "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "OPENAI_API_KEY": "e2e-dummy-key",
        "OPENAI_MODEL": "fake-model",
        "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
    }


ROW = Agent(
    id="qwen", name="Qwen Code", shell_tool="run_shell_command", hook_tool="run_shell_command",
    post_keys=frozenset({"session_id", "transcript_path", "cwd", "hook_event_name", "timestamp",
                         "permission_mode", "prompt_id", "tool_name", "tool_input", "tool_response",
                         "tool_use_id", "tool_call_id", "duration_ms"}),
    configure=_configure, env=_env,
    argv=lambda exe: [exe, "-p", "Run echo hello", "--auth-type", "openai", "--approval-mode", "yolo",
                      "-o", "json"],
    config_files=(".qwen/settings.json",),
    payload_call_id=member("tool_call_id"),
)
