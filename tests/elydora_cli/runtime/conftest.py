"""Fixtures for the hook runtime tests (helpers live in elydora_testkit/runtime_helpers.py)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
from elydora_testkit.fake_elydora_server import FakeElydora, ServerState


@pytest.fixture
def server() -> Iterator[FakeElydora]:
    fake = FakeElydora(ServerState(token="tok-" + secrets.token_urlsafe(12))).start()
    try:
        yield fake
    finally:
        fake.stop()
