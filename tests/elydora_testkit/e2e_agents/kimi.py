"""kimi-cli (legacy Kimi, ``~/.kimi``): chat completions (SSE) through a ``[providers.fake]`` table."""

from __future__ import annotations

from elydora_testkit.e2e_agents.shape import Agent, member, no_env, write_text
from elydora_testkit.e2e_harness import Sandbox


def _configure(sb: Sandbox, port: int) -> None:
    write_text(sb.home / ".kimi" / "config.toml", (
        'default_model = "fake-model"\n'
        "telemetry = false\n"
        "\n"
        "[providers.fake]\n"
        'type = "openai_legacy"\n'
        f'base_url = "http://127.0.0.1:{port}/v1"\n'
        'api_key = "e2e-dummy-key"\n'
        "\n"
        "[models.fake-model]\n"
        'provider = "fake"\n'
        'model = "fake-model"\n'
        "max_context_size = 128000\n"
    ))


ROW = Agent(
    id="kimi", name="kimi-cli", shell_tool="Shell", hook_tool="Shell",
    post_keys=frozenset({"hook_event_name", "session_id", "cwd", "tool_name", "tool_input", "tool_output",
                         "tool_call_id"}),
    configure=_configure, env=no_env,
    argv=lambda exe: [exe, "--print", "--yolo", "-p", "Run echo hello", "--final-message-only"],
    config_files=(".kimi/config.toml", ".kimi-code/config.toml"),
    payload_call_id=member("tool_call_id"),
)
