"""Helpers for the neutral hook contract tests (imported by the test files of this directory)."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from locations import NEUTRAL_V1

from elydora_cli import identity
from elydora_cli.main import main
from elydora_cli.runtime.refresh import cache_bytes
from elydora_config import files, keys, paths

REFERENCE = NEUTRAL_V1


def contains(actual: Any, expected: Any) -> bool:
    """The vectors' containment rule: every expected key/item is present and contained, scalars equal."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(k in actual and contains(actual[k], v) for k, v in expected.items())
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) >= len(expected)
            and all(contains(a, e) for a, e in zip(actual, expected, strict=False))
        )
    return type(actual) is type(expected) and actual == expected


@dataclass
class Result:
    code: int
    out: bytes
    err: str

    @property
    def text(self) -> str:
        return self.out.decode("utf-8")

    def json(self) -> Any:
        return json.loads(self.out)


class Cli:
    """Runs ``elydora`` in-process with the given stdin bytes and environment; captures stdout as bytes."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch

    def __call__(self, *argv: str, stdin: bytes = b"", env: dict[str, str] | None = None) -> Result:
        out, err = io.BytesIO(), io.BytesIO()
        streams = {
            "stdin": io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"),
            "stdout": io.TextIOWrapper(out, encoding="utf-8", write_through=True),
            "stderr": io.TextIOWrapper(err, encoding="utf-8", write_through=True),
        }
        with self.monkeypatch.context() as patch:
            for name, value in (env or {}).items():
                patch.setenv(name, value)
            for name, stream in streams.items():
                patch.setattr(f"sys.{name}", stream)
            try:
                code = main(list(argv))
            except SystemExit as exc:  # argparse usage errors
                code = int(exc.code or 0)
            streams["stdout"].flush()
            streams["stderr"].flush()
            result = Result(code, out.getvalue(), err.getvalue().decode("utf-8"))
        return result


class Agents:
    """Agents under one state root, made with ``elydora agent create`` (and freeze/revoke)."""

    def __init__(self, root: Path, cli: Cli) -> None:
        self.root = root
        self.cli = cli

    def directory(self, agent_id: str) -> Path:
        return self.root / ".elydora" / agent_id

    def create(self, provider: str, status: str = "active", agent_id: str | None = None) -> Path:
        chosen = ["--agent-id", agent_id] if agent_id else []
        where = ["--provider", provider, "--state-root", str(self.root), *chosen]
        created = self.cli("agent", "create", *where)
        assert created.code == 0, created.err
        if status != "active":
            verb = {"frozen": "freeze", "revoked": "revoke"}[status]
            changed = self.cli("agent", verb, *where, *(["--yes"] if verb == "revoke" else []))
            assert changed.code == 0, changed.err
        return self.directory(agent_id or provider)

    def server(self, provider: str, status: str | None, *, age: float = 0.0) -> Path:
        """A server-bound agent (unreachable server) whose status cache is ``age`` seconds old."""
        directory = self.directory(provider)
        paths.ensure_directory(directory)
        key = keys.generate_private_key()
        config = identity.AgentConfig("org-1", provider, "kid-1", "http://127.0.0.1:9", provider, "tok-x")
        files.write_atomic(directory / identity.CONFIG, config.to_bytes(), mode=0o600)
        files.write_atomic(directory / identity.PRIVATE_KEY, (keys.encode_private_key(key) + "\n").encode(), mode=0o600)
        if status is not None:
            stamp = time.time() - age
            files.write_atomic(directory / identity.STATUS_CACHE, cache_bytes(status, stamp, stamp), mode=0o600)
        return directory


def wait_until(predicate: Callable[[], bool], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def ledger_payloads(directory: Path) -> list[Any]:
    path = directory / identity.LEDGER
    if not path.exists():
        return []
    return [json.loads(line)["record"]["payload"] for line in path.read_text().splitlines() if line.strip()]


def spool_events(directory: Path) -> list[bytes]:
    """The event texts of ``spool.jsonl`` (without receipt times)."""
    path = directory / identity.SPOOL
    if not path.exists():
        return []
    return [line.split(b" ", 1)[1] for line in path.read_bytes().split(b"\n") if line.strip()]
