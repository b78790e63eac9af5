"""Fixtures for the hook runtime tests (helpers live in runtime_helpers.py beside this file)."""

from __future__ import annotations

import secrets
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_elydora_server import FakeElydora, ServerState


@pytest.fixture
def server() -> Iterator[FakeElydora]:
    fake = FakeElydora(ServerState(token="tok-" + secrets.token_urlsafe(12))).start()
    try:
        yield fake
    finally:
        fake.stop()
