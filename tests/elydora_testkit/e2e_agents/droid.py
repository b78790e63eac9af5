"""Factory Droid: chat completions through ``customModels`` in ``~/.factory/settings.json``."""

from __future__ import annotations

from elydora_testkit.e2e_agents.shape import Agent, no_env, write_json
from elydora_testkit.e2e_harness import Sandbox


def _configure(sb: Sandbox, port: int) -> None:
    write_json(sb.home / ".factory" / "settings.json", {
        "customModels": [{
            "model": "fake-model",
            "displayName": "fake",
            "baseUrl": f"http://127.0.0.1:{port}/v1",
            "apiKey": "e2e-dummy-key",
            "provider": "generic-chat-completion-api",
            "maxOutputTokens": 4096,
        }],
    })


ROW = Agent(
    id="droid", name="Factory Droid", shell_tool="Execute", hook_tool="Execute",
    post_keys=frozenset({"session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name",
                         "tool_name", "tool_input", "tool_response"}),
    configure=_configure, env=no_env,
    argv=lambda exe: [exe, "exec", "-m", "custom:fake-0", "--auto", "high", "Run echo hello"],
    config_files=(".factory/hooks.json", ".factory/hooks", ".factory/settings.json",
                  ".factory/settings.local.json"),
)
