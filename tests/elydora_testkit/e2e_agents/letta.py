"""Letta Code (PyPI ``letta``, which carries its own Node runtime): its embedded local backend, and a provider
connected to the fake model's chat completions with Letta's own ``letta connect``.

The user's setup is two commands of the CLI: ``letta backend local`` (the agent and its conversations live on
this machine, not in Letta's cloud) and ``letta connect openai-compatible`` (which checks the key against the
base URL's ``/models``). Letta's post-tool payload carries no session id.
"""

from __future__ import annotations

import shlex

from elydora_testkit.e2e_agents.shape import Agent, member, no_config, no_env

MODEL_HANDLE = "openai-compatible/fake-model"


def _setup(exe: str, port: int) -> list[str]:
    backend = [exe, "backend", "local"]
    connect = [exe, "connect", "openai-compatible", "--base-url", f"http://127.0.0.1:{port}/v1",
               "--api-key", "e2e-dummy-key"]
    return ["/bin/sh", "-c", f"{shlex.join(backend)} && {shlex.join(connect)}"]


ROW = Agent(
    id="letta", name="Letta Code", shell_tool="Bash", hook_tool="Bash",
    post_keys=frozenset({"event_type", "working_directory", "tool_name", "tool_input", "tool_call_id",
                         "tool_result", "agent_id"}),
    configure=no_config, env=no_env,
    setup_argv=_setup,
    argv=lambda exe: [exe, "--backend", "local", "-p", "Run echo hello", "-m", MODEL_HANDLE,
                      "--output-format", "json"],
    config_files=(".letta/settings.json",),
    post_event_ok=lambda payload: payload.get("event_type") == "PostToolUse",
    payload_cwd=member("working_directory"),
    payload_call_id=member("tool_call_id"),
)
