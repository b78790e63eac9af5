"""Fixtures shared by the command tests that work on agents' hooks through the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

AGENT_VARIABLES = (
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "GEMINI_CLI_HOME",
    "KIMI_CODE_HOME",
    "GROK_HOME",
    "CLINE_DIR",
    "COPILOT_HOME",
    "QWEN_HOME",
    "QWEN_RUNTIME_DIR",
    "ELYDORA_VERIFY_PROBE",
    "CLAUDE_CODE_SAFE_MODE",
    "GEMINI_CLI_TRUST_WORKSPACE",
    "GEMINI_RESTRICTED_MODE",
    "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
    "GEMINI_CLI_SYSTEM_DEFAULTS_PATH",
    "QWEN_CODE_SAFE_MODE",
    "QWEN_CODE_SIMPLE",
)
"""Variables that would move an agent's files away from the test's settings root (or fake a probe), or switch
its hooks off (status reports those)."""


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``<tmp>/home`` (the settings root) and ``<tmp>/work`` (the project, also the cwd), in a clean env."""
    for name in AGENT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "home").mkdir()
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    return tmp_path
