"""Kimi Code (npm ``@moonshot-ai/kimi-code``, ``~/.kimi-code``) and the archived kimi-cli (PyPI, ``~/.kimi``): chat
completions (SSE) through a ``[providers.fake]`` table of the agent's own ``config.toml``.

``ROW`` is Kimi Code, the stable contract ``elydora install kimi`` targets first. Kimi Code reports a call our
guard vetoed as a failed tool call: its ``PostToolUseFailure`` hook fires with our guard's line as the error
(``block_record``; docs/providers.md, Kimi Code). ``LEGACY`` is kimi-cli 1.51.0, driven by ``test_kimi.py`` with
the same four phases (its lock entry is ``kimi-cli``).
"""

from __future__ import annotations

from elydora_testkit.e2e_agents.shape import Agent, Json, member, no_env, write_text
from elydora_testkit.e2e_harness import Sandbox


def provider_tables(port: int, provider_type: str) -> str:
    """The model settings a user of either Kimi has before installing: one provider, one model alias."""
    return (
        'default_model = "fake-model"\n'
        "\n"
        "[providers.fake]\n"
        f'type = "{provider_type}"\n'
        f'base_url = "http://127.0.0.1:{port}/v1"\n'
        'api_key = "e2e-dummy-key"\n'
        "\n"
        "[models.fake-model]\n"
        'provider = "fake"\n'
        'model = "fake-model"\n'
        "max_context_size = 128000\n"
    )


def configure_legacy(sb: Sandbox, port: int) -> None:
    """kimi-cli's ``~/.kimi/config.toml`` (its provider type for chat completions is ``openai_legacy``)."""
    write_text(sb.home / ".kimi" / "config.toml", "telemetry = false\n" + provider_tables(port, "openai_legacy"))


def _configure(sb: Sandbox, port: int) -> None:
    write_text(sb.home / ".kimi-code" / "config.toml", provider_tables(port, "openai"))


def _env(sb: Sandbox, port: int) -> dict[str, str]:
    return {"KIMI_DISABLE_TELEMETRY": "1", "KIMI_CODE_NO_AUTO_UPDATE": "1"}


def error_message(payload: Json) -> object:
    """The text of Kimi Code's ``error`` object in a ``PostToolUseFailure`` payload."""
    error = payload.get("error")
    return error.get("message") if isinstance(error, dict) else None


ROW = Agent(
    id="kimi", name="Kimi Code", shell_tool="Bash", hook_tool="Bash",
    post_keys=frozenset({"hook_event_name", "session_id", "cwd", "client_type", "tool_name",
                         "tool_input", "tool_call_id", "tool_output"}),
    configure=_configure, env=_env,
    argv=lambda exe: [exe, "-p", "Run echo hello"],
    config_files=(".kimi/config.toml", ".kimi-code/config.toml"),
    payload_call_id=member("tool_call_id"),
    block_record="PostToolUseFailure",
    block_record_text=error_message,
    answer_delay=2.0,  # Kimi Code kills post-tool hooks still running when `-p` ends (docs/e2e.md, finding 24)
)

LEGACY = Agent(
    id="kimi", name="kimi-cli", shell_tool="Shell", hook_tool="Shell",
    post_keys=frozenset({"hook_event_name", "session_id", "cwd", "tool_name", "tool_input", "tool_output",
                         "tool_call_id"}),
    configure=configure_legacy, env=no_env,
    argv=lambda exe: [exe, "--print", "--yolo", "-p", "Run echo hello", "--final-message-only"],
    config_files=(".kimi/config.toml", ".kimi-code/config.toml"),
    payload_call_id=member("tool_call_id"),
)
