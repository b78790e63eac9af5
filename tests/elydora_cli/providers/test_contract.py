"""The provider contract: every agent module binds every name of ``Provider``, and mypy holds them to it."""

from __future__ import annotations

import subprocess
import sys
import typing
from pathlib import Path

import pytest

from elydora_cli import providers
from elydora_cli.plug.provider import Provider

PROJECT = Path(__file__).resolve().parents[3]
NAMES = sorted(
    set(typing.get_type_hints(Provider)) | {n for n in vars(Provider) if not n.startswith("_")} - {"mro"}
)


@pytest.mark.parametrize("provider_id", providers.implemented_ids())
def test_every_agent_module_binds_every_name_of_the_contract(provider_id: str) -> None:
    module = vars(providers.load(provider_id))
    assert {"FACTS", "ROLES", "NOTES", "HOOK_COMMAND_REFUSED", "install", "check", "agent_argv"} <= set(NAMES)
    assert [name for name in NAMES if name not in module] == []


def test_providers_lists_only_agent_modules() -> None:
    here = PROJECT / "elydora_cli" / "providers"
    modules = sorted(p.stem for p in here.glob("*.py") if p.stem != "__init__")
    assert modules == sorted(providers.implemented_ids())


GOOD = """
from elydora_cli.plug.provider import Provider
from elydora_cli.providers import cursor

PLUG: Provider = cursor
"""
MISSPELT_MODULE = """
from elydora_cli.providers.cursor import (
    FACTS, HOOK_COMMAND_REFUSED, NOTES, ROLES, agent_argv, extra_runtime, install, installed_entries,
    sources, uninstall,
)
from elydora_cli.providers.cursor import check as chek
"""
BAD = """
import misspelt

from elydora_cli.plug.provider import Provider

PLUG: Provider = misspelt
"""


def test_mypy_rejects_an_agent_module_with_a_misspelt_function(tmp_path: Path) -> None:
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "misspelt.py").write_text(MISSPELT_MODULE)
    (tmp_path / "bad.py").write_text(BAD)
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"),
         "--follow-imports=silent", str(tmp_path / "good.py"), str(tmp_path / "bad.py")],
        cwd=PROJECT,
        env={"MYPYPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )  # fmt: skip
    errors = [line for line in run.stdout.splitlines() if ": error:" in line]
    assert run.returncode == 1, run.stdout + run.stderr
    assert len(errors) == 1 and errors[0].startswith(str(tmp_path / "bad.py")), run.stdout
    assert 'expression has type Module, variable has type "Provider"' in errors[0], run.stdout
