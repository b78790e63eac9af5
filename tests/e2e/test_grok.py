"""End to end, Grok Build only: ``status`` and ``verify`` ask the real ``grok inspect --json`` (issue 15)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from elydora_testkit.e2e_session import open_session

pytestmark = pytest.mark.e2e

QUIET = {"GROK_TELEMETRY_ENABLED": "0", "GROK_DISABLE_AUTOUPDATER": "1", "GROK_AUTO_UPDATE": "0",
         "GROK_ERROR_REPORTING": "0", "GROK_FEEDBACK_ENABLED": "0"}


def test_status_and_verify_ask_the_real_grok(agent_cache: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
                                            tmp_path_factory: pytest.TempPathFactory) -> None:
    for name, value in QUIET.items():  # `elydora` hands its environment to `grok inspect`
        monkeypatch.setenv(name, value)
    for s in open_session("grok", agent_cache, tmp_path_factory.mktemp("e2e-grok-inspect")):
        sb, prefix = s.sandbox, s.info["path_prefix"]
        status = sb.elydora("status", "grok", "--json", "--root", str(sb.home), path_prefix=prefix, check=False)
        row = json.loads(status.stdout)["providers"][0]
        assert (status.returncode, row["state"], row["check"], row["check_note"]) == (
            0, "healthy", "agent", "checked with grok inspect"), status.stdout
        verify = sb.elydora("verify", "grok", "--json", "--root", str(sb.home), path_prefix=prefix, check=False)
        agent_checks = [c["ok"] for c in json.loads(verify.stdout)["checks"] if c["probe"] == "agent"]
        assert verify.returncode == 0 and agent_checks and all(agent_checks), verify.stdout
        # Grok lists what it will not run with "disabled": true; our own hooks must never be among them
        sb.elydora("install", "claudecode", "--root", str(sb.home))
        (sb.home / ".grok" / "config.toml").write_text(
            (sb.home / ".grok" / "config.toml").read_text() + "\n[compat.claude]\nhooks = false\n")
        status = sb.elydora("status", "grok", "--json", "--root", str(sb.home), path_prefix=prefix, check=False)
        assert json.loads(status.stdout)["providers"][0]["check"] == "agent", status.stdout
        assert status.returncode == 0, status.stdout
