"""OpenHands CLI (PyPI ``openhands``, on the SDK ``openhands-sdk``): chat completions through litellm, set by
its ``LLM_*`` variables, which ``--override-with-envs`` applies (without it they are ignored).

At start it also tries to clone its public skills from the network, which fails at once in the namespace and
only logs an error. Its post-tool payload carries no tool call id.
"""

from __future__ import annotations

from elydora_testkit.e2e_agents.shape import Agent, Json, member, no_config
from elydora_testkit.e2e_harness import Sandbox


def _env(sb: Sandbox, port: int) -> dict[str, str]:
    return {
        "LLM_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "LLM_API_KEY": "e2e-dummy-key",
        "LLM_MODEL": "openai/fake-model",  # litellm's provider prefix: OpenAI chat completions at the base URL
        # litellm fetches its model price list from the network at start (three tries with back-off, about
        # 8 s offline) unless told to use the copy it ships:
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "OPENHANDS_SUPPRESS_BANNER": "1",
    }


def _post_tool(payload: Json) -> bool:
    return payload.get("event_type") == "PostToolUse"


ROW = Agent(
    id="openhands", name="OpenHands CLI", shell_tool="terminal", hook_tool="terminal",
    post_keys=frozenset({"event_type", "tool_name", "tool_input", "tool_response", "message", "session_id",
                         "working_dir", "metadata"}),
    configure=no_config, env=_env,
    argv=lambda exe: [exe, "--headless", "--json", "--override-with-envs", "-t", "Run echo hello"],
    config_files=(".openhands/hooks.json",),
    post_event_ok=_post_tool,
    payload_cwd=member("working_dir"),
)
