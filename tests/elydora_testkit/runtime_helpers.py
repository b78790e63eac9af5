"""Helpers for the hook runtime tests: agent directories as ``agent create`` leaves them, script runs."""

from __future__ import annotations

import secrets
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from elydora_cli import identity
from elydora_cli.health import flusher_alive
from elydora_cli.runtime import generate, runtime_argv
from elydora_config import files, keys, paths
from elydora_testkit.fake_elydora_server import FakeElydora

PYTHON = sys.executable


def host_envelope(provider: str, stdin: bytes) -> bytes:
    """``stdin`` as the provider's own agent sends it: a runtime that acts only for its host's payloads
    (catalog ``host``, Claude Code) finds the member names that agent always sends in front of the test's
    own members (those it lacks). Anything that is not a JSON object is passed on unchanged."""
    from elydora_cli import catalog

    host = catalog.provider(provider).host
    body = stdin.lstrip()
    if host is None or not body.startswith(b"{"):
        return stdin
    missing = [key for key in host.payload_keys if b'"%s"' % key.encode() not in body]
    if not missing:
        return stdin
    members = b"".join(b'"%s": "",' % key.encode() for key in missing)
    rest = body[1:].lstrip()
    return b"{" + (members[:-1] if rest.startswith(b"}") else members) + rest


@dataclass
class AgentHandle:
    directory: Path
    provider: str
    key: Any
    config: identity.AgentConfig

    def path(self, name: str) -> Path:
        return self.directory / name

    def run(self, script: str, stdin: bytes, timeout: float = 30) -> subprocess.CompletedProcess[bytes]:
        argv = runtime_argv(PYTHON, self.directory / script)
        data = host_envelope(self.provider, stdin)
        return subprocess.run(argv, input=data, capture_output=True, timeout=timeout, check=False)

    def set_local_status(self, status: str) -> None:
        files.write_atomic(self.path(identity.STATUS), identity.status_bytes(status, None), mode=0o600)


def make_agent(
    root: Path, provider: str, *, agent_id: str | None = None, server: FakeElydora | None = None
) -> AgentHandle:
    """An agent directory as ``agent create`` leaves it (local, or bound to ``server``)."""
    chosen = agent_id or provider
    directory = Path(identity.agent_dir(root, chosen))
    paths.ensure_directory(directory)
    key = keys.generate_private_key()
    if server is None:
        config = identity.AgentConfig("local", chosen, identity.key_id(key), None, provider)
        files.write_atomic(directory / identity.STATUS, identity.status_bytes("active", None), mode=0o600)
    else:
        kid = "kid-" + secrets.token_hex(4)
        config = identity.AgentConfig("org-1", chosen, kid, server.base_url, provider, server.state.token)
        server.state.add_agent(chosen, "org-1", kid, key.public_key())
    files.write_atomic(directory / identity.CONFIG, config.to_bytes(), mode=0o600)
    key_line = (keys.encode_private_key(key) + "\n").encode()
    files.write_atomic(directory / identity.PRIVATE_KEY, key_line, mode=0o600)
    for name, (data, mode) in generate(provider, directory, PYTHON).items():
        files.write_atomic(directory / name, data, mode=mode)
    return AgentHandle(directory, provider, key, config)


def wait_until(predicate: Callable[[], bool], timeout: float = 30.0, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


def no_flusher_running(agent: AgentHandle) -> bool:
    """No flusher holds the agent's ``flush.lock`` (read without taking it, so a hook never sees us as one)."""
    return not flusher_alive(str(agent.directory))
