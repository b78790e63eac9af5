"""An agent's ``config.json`` is read and parsed once inside a read-only pass, and afresh outside of one."""

from __future__ import annotations

from pathlib import Path

import pytest

from elydora_cli import identity
from elydora_cli.readpass import ReadPass


def _agent(tmp_path: Path, name: str) -> Path:
    directory = tmp_path / "agent"
    directory.mkdir(exist_ok=True)
    config = identity.AgentConfig(identity.LOCAL_ORG, "agent", "kid", None, name)
    (directory / identity.CONFIG).write_bytes(config.to_bytes())
    return directory


def test_a_read_only_pass_parses_the_config_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    directory = _agent(tmp_path, "claudecode")
    parsed: list[bytes] = []
    real = identity.parse_config

    def counting(data: bytes, path: object = None) -> identity.AgentConfig:
        parsed.append(data)
        return real(data, path)  # type: ignore[arg-type]

    monkeypatch.setattr(identity, "parse_config", counting)
    with ReadPass() as reads:
        first = identity.read_config(directory, reads=reads)
        assert identity.read_config(directory, reads=reads) is first and len(parsed) == 1
        assert identity.read_config(directory) is not first and len(parsed) == 2  # plain reads: parsed again
    _agent(tmp_path, "codex")
    assert identity.read_config(directory).agent_name == "codex" and len(parsed) == 3  # outside: read again
    with ReadPass() as reads:
        assert identity.read_config(directory, reads=reads).agent_name == "codex"
    assert len(parsed) == 4  # a new pass reads again
