"""Qoder CLI: no login and no model API; its model is a scripted answer file (``e2e_scripted_model``).

Qoder 1.1.52 runs nothing, not even a Custom Provider pointed at the fake model, before a Qoder account is signed
in (browser login or a personal access token exchanged with Qoder's servers; Custom Providers are further gated by
the account's status on those servers). Its hidden ``--fake-responses <file>`` option, with
``security.auth.useExternal`` (skip Qoder's own auth check) in the user's settings, runs the whole agent offline:
the real tool loop, permissions, hooks and transcript, with the model's answers read from the file.
"""

from __future__ import annotations

from elydora_testkit.e2e_agents.shape import Agent, Json, member, write_json
from elydora_testkit.e2e_harness import Sandbox
from elydora_testkit.e2e_scripted_model import requests_from_transcripts, write_script

SHELL_TOOL = "Bash"
SCRIPT = "model-script.jsonl"  # beside the home and the project folder, named relative to the project folder


def _configure(sb: Sandbox, port: int) -> None:
    write_json(sb.home / ".qoder" / "settings.json", {
        "security": {"auth": {"useExternal": True}},
        "privacy": {"usageStatisticsEnabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        # its bundled security-scan plugin would download a scanner binary at every start
        "securityScan": {"l1StaticCheck": False, "l2LightweightScan": False, "l3DeepScan": False},
    })
    write_script(sb.root / SCRIPT, SHELL_TOOL)


def _model_log(sb: Sandbox, since: float) -> list[Json]:
    return requests_from_transcripts(sb.home / ".qoder" / "projects", since, SHELL_TOOL)


def _env(sb: Sandbox, port: int) -> dict[str, str]:
    return {"NO_BROWSER": "1"}


ROW = Agent(
    id="qoder", name="Qoder CLI", shell_tool=SHELL_TOOL, hook_tool=SHELL_TOOL,
    post_keys=frozenset({"session_id", "transcript_path", "cwd", "hook_event_name", "permission_mode",
                         "tool_use_id", "tool_name", "tool_input", "tool_response"}),
    configure=_configure, env=_env,
    argv=lambda exe: [exe, "-p", "Run echo hello", "--dangerously-skip-permissions",
                      "--fake-responses", f"../{SCRIPT}", "-o", "json"],
    config_files=(".qoder/settings.json",),
    payload_call_id=member("tool_use_id"),
    model_log=_model_log,
)
