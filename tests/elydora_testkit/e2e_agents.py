"""One row per agent: how to point the real CLI at the fake model, run it headless, and read what it sent.

The facts (switches, headless commands, payload shapes) come from each agent's documentation and earlier
offline runs (their payloads are kept in ``fixtures/payloads/captured/``), and this suite checks them again
against the versions pinned in ``agents.lock.json``. Only the
agent's own non-hook settings are written here (model, base URL, auth, telemetry), as a user has them before
installing; every hook entry comes from ``elydora install``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from elydora_testkit.e2e_harness import SYSTEM_PATH, Sandbox

# How the agent tells the model that our guard blocked the tool:
STDERR_TO_MODEL = "stderr"  # our guard's stderr line is in the tool result the model gets
DENIAL_WITH_REASON = "reason"  # the agent's own denial text (``denial_text``), then the reason our guard printed
TASK_ABORTED = "aborted"  # the agent ends the whole task; the model is not asked again

Json = dict[str, Any]


def _write_json(path: Path, data: Json) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


@dataclass(frozen=True)
class Agent:
    id: str
    name: str
    shell_tool: str  # the tool the model is offered and the fake model calls
    hook_tool: str  # the tool name the agent puts in its hook payloads
    post_keys: frozenset[str]  # top-level keys of the native post-tool payload (fixtures/payloads/captured/)
    configure: Callable[[Sandbox, int], None]  # the agent's own settings (not hooks)
    argv: Callable[[str], list[str]]  # headless command, given the executable
    env: Callable[[Sandbox, int], dict[str, str]]
    config_files: tuple[str, ...]  # where hook entries could live (relative to home): checked after uninstall
    block_feedback: str = STDERR_TO_MODEL
    denial_text: str = ""
    setup_argv: Callable[[str, int], list[str]] | None = None  # a one-time setup command (e.g. `cline auth`)
    extra_run_args: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)

    # -- reading the native post-tool payload
    def post_event_ok(self, payload: Json) -> bool:
        if self.id == "cline":
            return payload.get("hookName") == "tool_result"
        if self.id == "copilot":
            return "toolResult" in payload  # Copilot's payload has no event-name field
        return payload.get("hook_event_name") == ("AfterTool" if self.id == "gemini" else "PostToolUse")

    def payload_tool(self, payload: Json) -> Any:
        if self.id == "cline":
            return (payload.get("tool_result") or {}).get("name")
        return payload.get("toolName") if self.id == "copilot" else payload.get("tool_name")

    def payload_command(self, payload: Json) -> Any:
        if self.id == "cline":
            commands = ((payload.get("tool_result") or {}).get("input") or {}).get("commands") or [None]
            return commands[0]
        args = payload.get("toolArgs") if self.id == "copilot" else payload.get("tool_input")
        return (args or {}).get("command")

    def payload_cwd(self, payload: Json) -> Any:
        if self.id == "cline":
            return (payload.get("workspaceRoots") or [None])[0]
        return payload.get("cwd")

    def payload_call_id(self, payload: Json) -> Any:
        """The tool call id the agent got from the model, where its payload carries it (else None)."""
        key = {"claudecode": "tool_use_id", "codex": "tool_use_id", "kimi": "tool_call_id", "qwen": "tool_call_id"}
        if self.id in key:
            return payload.get(key[self.id])
        if self.id == "cline":
            return (payload.get("tool_result") or {}).get("id")
        return None


def _base_env(sandbox: Sandbox) -> dict[str, str]:
    return {
        "HOME": str(sandbox.home),
        "USER": "root",
        "LOGNAME": "root",
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "TMPDIR": str(sandbox.home / "tmp"),
        "PATH": SYSTEM_PATH,
    }


# -- Claude Code --------------------------------------------------------------------------------------------
def _claude_configure(sb: Sandbox, port: int) -> None:
    pass  # everything goes through the environment


def _claude_env(sb: Sandbox, port: int) -> dict[str, str]:
    return {
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        "ANTHROPIC_API_KEY": "e2e-dummy-key",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }


# -- Codex ------------------------------------------------------------------------------------------------------
def _codex_configure(sb: Sandbox, port: int) -> None:
    path = sb.home / ".codex" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        'model = "fake-model"\n'
        'model_provider = "fake"\n'
        "\n"
        "[model_providers.fake]\n"
        'name = "fake"\n'
        f'base_url = "http://127.0.0.1:{port}/v1"\n'
        'wire_api = "responses"\n'
        'env_key = "FAKE_API_KEY"\n'
    )


# -- Gemini CLI -------------------------------------------------------------------------------------------------
def _gemini_configure(sb: Sandbox, port: int) -> None:
    # Current key names: Gemini rewrites a file that uses deprecated ones (e.g. general.disableAutoUpdate).
    _write_json(sb.home / ".gemini" / "settings.json", {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    })


def _gemini_env(sb: Sandbox, port: int) -> dict[str, str]:
    return {
        "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{port}",
        "GEMINI_API_KEY": "e2e-dummy-key",
        "GEMINI_DEFAULT_AUTH_TYPE": "gemini-api-key",
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
    }


# -- Qwen Code --------------------------------------------------------------------------------------------------
def _qwen_configure(sb: Sandbox, port: int) -> None:
    _write_json(sb.home / ".qwen" / "settings.json", {
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False},
    })


def _qwen_env(sb: Sandbox, port: int) -> dict[str, str]:
    return {
        "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "OPENAI_API_KEY": "e2e-dummy-key",
        "OPENAI_MODEL": "fake-model",
        "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
    }


# -- kimi-cli (legacy Kimi, ~/.kimi) ------------------------------------------------------------------------
def _kimi_configure(sb: Sandbox, port: int) -> None:
    path = sb.home / ".kimi" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
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
    )


# -- GitHub Copilot CLI -----------------------------------------------------------------------------------------
def _copilot_env(sb: Sandbox, port: int) -> dict[str, str]:
    return {
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "COPILOT_PROVIDER_API_KEY": "e2e-dummy-key",
        "COPILOT_MODEL": "gpt-4.1",
        "COPILOT_ALLOW_ALL": "true",
    }


# -- Factory Droid ----------------------------------------------------------------------------------------------
def _droid_configure(sb: Sandbox, port: int) -> None:
    _write_json(sb.home / ".factory" / "settings.json", {
        "customModels": [{
            "model": "fake-model",
            "displayName": "fake",
            "baseUrl": f"http://127.0.0.1:{port}/v1",
            "apiKey": "e2e-dummy-key",
            "provider": "generic-chat-completion-api",
            "maxOutputTokens": 4096,
        }],
    })


def _no_config(sb: Sandbox, port: int) -> None:
    pass


def _no_env(sb: Sandbox, port: int) -> dict[str, str]:
    return {}


AGENTS: dict[str, Agent] = {a.id: a for a in (
    Agent(
        id="claudecode", name="Claude Code", shell_tool="Bash", hook_tool="Bash",
        post_keys=frozenset({"session_id", "transcript_path", "cwd", "prompt_id", "permission_mode", "effort",
                             "hook_event_name", "tool_name", "tool_input", "tool_response", "tool_use_id",
                             "duration_ms"}),
        configure=_claude_configure, env=_claude_env,
        argv=lambda exe: [exe, "-p", "Run echo hello", "--output-format", "json", "--allowedTools", "Bash"],
        config_files=(".claude/settings.json", ".claude/settings.local.json"),
    ),
    Agent(
        id="codex", name="OpenAI Codex", shell_tool="exec_command", hook_tool="Bash",
        post_keys=frozenset({"session_id", "turn_id", "transcript_path", "cwd", "hook_event_name", "model",
                             "permission_mode", "tool_name", "tool_input", "tool_response", "tool_use_id"}),
        configure=_codex_configure, env=lambda sb, port: {"FAKE_API_KEY": "e2e-dummy-key"},
        # --dangerously-bypass-hook-trust stands in for the user trusting our two hooks once in /hooks (TUI);
        # test_codex_untrusted_hooks covers what happens without it.
        argv=lambda exe: [exe, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
                          "--dangerously-bypass-hook-trust", "Run echo hello"],
        config_files=(".codex/hooks.json", ".codex/config.toml"),
    ),
    Agent(
        id="gemini", name="Gemini CLI", shell_tool="run_shell_command", hook_tool="run_shell_command",
        post_keys=frozenset({"session_id", "transcript_path", "cwd", "hook_event_name", "timestamp", "tool_name",
                             "tool_input", "tool_response"}),
        configure=_gemini_configure, env=_gemini_env,
        argv=lambda exe: [exe, "-p", "Run echo hello", "--approval-mode", "yolo", "-m", "gemini-2.5-flash",
                          "-o", "json"],
        config_files=(".gemini/settings.json",),
    ),
    Agent(
        id="kimi", name="kimi-cli", shell_tool="Shell", hook_tool="Shell",
        post_keys=frozenset({"hook_event_name", "session_id", "cwd", "tool_name", "tool_input", "tool_output",
                             "tool_call_id"}),
        configure=_kimi_configure, env=_no_env,
        argv=lambda exe: [exe, "--print", "--yolo", "-p", "Run echo hello", "--final-message-only"],
        config_files=(".kimi/config.toml", ".kimi-code/config.toml"),
    ),
    Agent(
        id="qwen", name="Qwen Code", shell_tool="run_shell_command", hook_tool="run_shell_command",
        post_keys=frozenset({"session_id", "transcript_path", "cwd", "hook_event_name", "timestamp",
                             "permission_mode", "prompt_id", "tool_name", "tool_input", "tool_response",
                             "tool_use_id", "tool_call_id", "duration_ms"}),
        configure=_qwen_configure, env=_qwen_env,
        argv=lambda exe: [exe, "-p", "Run echo hello", "--auth-type", "openai", "--approval-mode", "yolo",
                          "-o", "json"],
        config_files=(".qwen/settings.json",),
    ),
    Agent(
        id="copilot", name="GitHub Copilot CLI", shell_tool="bash", hook_tool="bash",
        post_keys=frozenset({"sessionId", "timestamp", "cwd", "toolName", "toolArgs", "toolResult"}),
        configure=_no_config, env=_copilot_env,
        argv=lambda exe: [exe, "-p", "Run echo hello", "--allow-all-tools", "--disable-client-telemetry",
                          "--no-auto-update", "-s"],
        config_files=(".copilot/hooks", ".copilot/settings.json", ".copilot/config.json"),
        # the guard prints {"permissionDecision": "deny", "permissionDecisionReason": <our line>} (docs/e2e.md)
        block_feedback=DENIAL_WITH_REASON, denial_text="Denied by preToolUse hook: ",
    ),
    Agent(
        id="droid", name="Factory Droid", shell_tool="Execute", hook_tool="Execute",
        post_keys=frozenset({"session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name",
                             "tool_name", "tool_input", "tool_response"}),
        configure=_droid_configure, env=_no_env,
        argv=lambda exe: [exe, "exec", "-m", "custom:fake-0", "--auto", "high", "Run echo hello"],
        config_files=(".factory/hooks.json", ".factory/hooks", ".factory/settings.json",
                      ".factory/settings.local.json"),
    ),
    Agent(
        id="cline", name="Cline CLI", shell_tool="run_commands", hook_tool="run_commands",
        post_keys=frozenset({"clineVersion", "timestamp", "taskId", "sessionContext", "workspaceRoots",
                             "workspaceInfo", "userId", "agent_id", "parent_agent_id", "hookName", "iteration",
                             "tool_result", "postToolUse"}),
        configure=_no_config, env=_no_env,
        setup_argv=lambda exe, port: [exe, "auth", "-p", "openai-compatible", "-k", "e2e-dummy-key", "-m",
                                      "fake-model", "-b", f"http://127.0.0.1:{port}/v1"],
        argv=lambda exe: [exe, "--json", "--auto-approve", "true", "-t", "80", "Run echo hello"],
        config_files=(".cline/hooks",),
        block_feedback=TASK_ABORTED,
    ),
)}

# Catalog agents with an installer but no agent CLI that can run here: the row is skipped with this reason.
NOT_RUNNABLE: dict[str, str] = {
    "augment": "Auggie 0.36.0 runs offline, but in an earlier offline trial Claude-style hooks in "
               "~/.augment/settings.json never fired, so there is nothing to assert yet",
    "cursor": "the Cursor agent CLI is not published on the npm registry or PyPI (it is installed from "
              "cursor.com, which this machine cannot reach)",
    "grok": "the Grok Build CLI is not published on the npm registry or PyPI",
    "letta": "Letta Code 0.32.18 cannot be installed (npm ETARGET for @janhapke/sharp-electron@0.35.3-electron.1) "
             "and it needs a Letta server API, not a plain model API",
    "kirocli": "Kiro CLI is not published on the npm registry or PyPI (vendor installer only)",
    "kiroide": "the Kiro IDE is a desktop download, not published on the npm registry or PyPI",
    "kiroagent": "Kiro CLI is not published on the npm registry or PyPI (vendor installer only)",
}


def run_env(agent: Agent, sandbox: Sandbox, port: int, path_prefix: list[str]) -> dict[str, str]:
    env = _base_env(sandbox)
    env["PATH"] = ":".join([*path_prefix, SYSTEM_PATH])
    env.update(agent.env(sandbox, port))
    return env
