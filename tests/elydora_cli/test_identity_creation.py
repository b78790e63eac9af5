"""One identity creation, one leftover rule: ``agent create`` and ``install`` refuse the same leftovers."""

from __future__ import annotations

from pathlib import Path

import pytest
from elydora_testkit.provider_cases import make_context

from elydora_cli import identity
from elydora_cli.installer import operations
from elydora_cli.main import main


@pytest.mark.parametrize("leftover", identity.LEFTOVER_STATE)
def test_agent_create_and_install_refuse_the_same_leftovers(
    leftover: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ctx = make_context(tmp_path)
    directory = ctx.agent_dir("codex")
    directory.mkdir(parents=True, mode=0o700)
    (directory / leftover).write_text("{}\n")
    with pytest.raises(identity.IdentityError) as by_install:
        operations.install("codex", ctx)
    assert main(["agent", "create", "--provider", "codex", "--root", str(ctx.home)]) == 1
    by_create = capsys.readouterr().err
    assert f"holds state of an earlier agent ({leftover}) but no config.json" in str(by_install.value)
    assert str(by_install.value) in by_create
    assert sorted(p.name for p in directory.iterdir()) == [leftover]  # nothing written by either


def test_both_create_the_same_identity_files(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    operations.install("codex", ctx)
    assert main(["agent", "create", "--provider", "gemini", "--root", str(ctx.home)]) == 0
    for agent in ("codex", "gemini"):
        directory = ctx.agent_dir(agent)
        config = identity.read_config(directory)
        assert (config.agent_id, config.agent_name, config.is_local) == (agent, agent, True)
        assert identity.read_local_status(directory) == "active"
        assert config.kid == identity.key_id(identity.read_private_key(directory))
