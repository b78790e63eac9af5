"""Fixtures for the neutral hook contract tests: the reference data, an in-process CLI, agents.

The reference data lives in ``<project root>/../shared/reference/neutral-v1``; tests that need it are
skipped with a reason when it is absent. Helpers shared by several test files are in
``neutral_support.py`` beside this file.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from neutral_support import Agents, Cli, reference_dir


@pytest.fixture
def reference() -> Path:
    directory = reference_dir()
    if directory is None:
        pytest.skip("../shared/reference/neutral-v1 is not present next to the project")
    return directory


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.delenv("ELYDORA_HOOK_CONTRACT", raising=False)
    return Cli(monkeypatch)


@pytest.fixture
def agents(tmp_path: Path, cli: Cli) -> Agents:
    return Agents(tmp_path / "state", cli)
