"""Fixtures for the neutral hook contract tests: the contract vectors, an in-process CLI, agents.

The vectors and golden request/response pairs are in ``fixtures/neutral-v1`` (its README says what each
file is). Helpers shared by several test files are in ``elydora_testkit/neutral_support.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from elydora_testkit.neutral_support import REFERENCE, Agents, Cli


@pytest.fixture
def reference() -> Path:
    return REFERENCE


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.delenv("ELYDORA_HOOK_CONTRACT", raising=False)
    return Cli(monkeypatch)


@pytest.fixture
def agents(tmp_path: Path, cli: Cli) -> Agents:
    return Agents(tmp_path / "state", cli)
