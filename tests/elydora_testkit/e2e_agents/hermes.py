"""Hermes Agent (PyPI ``hermes-agent``): chat completions through a custom endpoint in ``~/.hermes/config.yaml``
(``model.provider: custom``, ``base_url``), which the user keeps with comments; our hooks join its ``hooks:``
block and their approvals the consent allowlist beside it (docs/providers.md, Hermes).

Hermes reports a call a ``pre_tool_call`` hook blocked through ``post_tool_call`` too (``extra.status:
"blocked"``, ``extra.error_message``: the hook's reason), so the block phase expects that one record.
"""

from __future__ import annotations

from elydora_testkit.e2e_agents.shape import Agent, Json, Reader, no_env, post_event_named, write_text
from elydora_testkit.e2e_harness import Sandbox


def _configure(sb: Sandbox, port: int) -> None:
    write_text(sb.home / ".hermes" / "config.yaml", (
        "# My Hermes settings: a local OpenAI-compatible endpoint.\n"
        "model:\n"
        "  default: fake-model   # the model the endpoint serves\n"
        "  provider: custom\n"
        f"  base_url: http://127.0.0.1:{port}/v1\n"
        "  api_key: e2e-dummy-key\n"
    ))


def _extra(name: str) -> Reader:
    def read(payload: Json) -> object:
        extra = payload.get("extra")
        return extra.get(name) if isinstance(extra, dict) else None

    return read


ROW = Agent(
    id="hermes", name="Hermes Agent", shell_tool="terminal", hook_tool="terminal",
    post_keys=frozenset({"hook_event_name", "tool_name", "tool_input", "session_id", "cwd", "extra"}),
    configure=_configure, env=no_env,
    argv=lambda exe: [exe, "-z", "Run echo hello", "--yolo"],
    config_files=(".hermes/config.yaml", ".hermes/shell-hooks-allowlist.json"),
    post_event_ok=post_event_named("post_tool_call"),
    payload_call_id=_extra("tool_call_id"),
    block_record="post_tool_call",
    block_record_text=_extra("error_message"),
)
