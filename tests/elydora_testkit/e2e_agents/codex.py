"""OpenAI Codex: the Responses API (SSE) through a ``[model_providers.fake]`` table."""

from __future__ import annotations

from elydora_testkit.e2e_agents.shape import Agent, member, write_text
from elydora_testkit.e2e_harness import Sandbox


def _configure(sb: Sandbox, port: int) -> None:
    write_text(sb.home / ".codex" / "config.toml", (
        'model = "fake-model"\n'
        'model_provider = "fake"\n'
        "\n"
        "[model_providers.fake]\n"
        'name = "fake"\n'
        f'base_url = "http://127.0.0.1:{port}/v1"\n'
        'wire_api = "responses"\n'
        'env_key = "FAKE_API_KEY"\n'
    ))


ROW = Agent(
    id="codex", name="OpenAI Codex", shell_tool="exec_command", hook_tool="Bash",
    post_keys=frozenset({"session_id", "turn_id", "transcript_path", "cwd", "hook_event_name", "model",
                         "permission_mode", "tool_name", "tool_input", "tool_response", "tool_use_id"}),
    configure=_configure, env=lambda sb, port: {"FAKE_API_KEY": "e2e-dummy-key"},
    # --dangerously-bypass-hook-trust stands in for the user trusting our two hooks once in /hooks (TUI);
    # tests/e2e/test_codex.py covers what happens without it.
    argv=lambda exe: [exe, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
                      "--dangerously-bypass-hook-trust", "Run echo hello"],
    config_files=(".codex/hooks.json", ".codex/config.toml"),
    payload_call_id=member("tool_use_id"),
)
