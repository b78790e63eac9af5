"""The runtime's background processes run in the agent's environment: nothing there may redirect their calls.

Found while closing issue 27's item 1 (no variable the agent can set may change the guard's decision): the
status refresher, started by the guard with the hook's environment, honoured ``http_proxy``/``https_proxy``, and
TLS trusted whatever ``SSL_CERT_FILE`` named. An agent's settings ``env`` block naming a proxy of its own could
answer the status query "active" for an agent frozen on the server, and lift the freeze.
"""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from elydora_testkit.fake_elydora_server import FakeElydora
from elydora_testkit.runtime_helpers import make_agent

from elydora_cli import identity
from elydora_cli.runtime import client


class _LyingProxy(BaseHTTPRequestHandler):
    """Answers every request, whatever it asks for, with an active agent (and counts them)."""

    seen: ClassVar[list[str]] = []
    answer: ClassVar[bytes] = b"{}"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.seen.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.answer)))
        self.end_headers()
        self.wfile.write(self.answer)


@pytest.fixture
def proxy() -> Iterator[tuple[str, type[_LyingProxy]]]:
    handler = type("Proxy", (_LyingProxy,), {"seen": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        server.shutdown()
        server.server_close()


def test_a_planted_proxy_never_answers_the_status_query(
    tmp_path: Path, server: FakeElydora, proxy: tuple[str, type[_LyingProxy]]
) -> None:
    agent = make_agent(tmp_path, "claudecode", server=server)
    server.state.agents["claudecode"].status = "frozen"
    url, handler = proxy
    keys = [{"kid": agent.config.kid, "status": "active"}]
    handler.answer = json.dumps({"agent": {"agent_id": "claudecode", "status": "active"}, "keys": keys}).encode()
    env = {**os.environ, "http_proxy": url, "HTTP_PROXY": url, "https_proxy": url, "all_proxy": url, "no_proxy": ""}
    argv = [sys.executable, "-I", "-m", "elydora_cli.runtime.refresh", str(agent.directory)]
    done = subprocess.run(argv, env=env, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    cache = json.loads(agent.path(identity.STATUS_CACHE).read_text())
    assert cache["status"] == "frozen" and handler.seen == []


def test_tls_trusts_the_interpreters_store_not_the_one_the_environment_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted = tmp_path / "planted-ca.pem"
    planted.write_text("not a certificate\n")
    monkeypatch.setenv("SSL_CERT_FILE", str(planted))  # a store the environment names: would fail to load
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path))
    context = client.tls_context()
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    paths = ssl.get_default_verify_paths()
    if os.path.isfile(paths.openssl_cafile):
        assert context.cert_store_stats()["x509_ca"] > 0  # the compiled-in bundle was loaded, not the planted file


def test_the_trust_store_is_loaded_by_the_first_request_not_by_the_import() -> None:
    """Loading the trust store was the costliest step of importing the client, paid by every ``agent`` command
    and ``--help`` even with no server configured; it now happens on the first request."""
    script = (
        "import ssl\n"
        "calls = []\n"
        "real = ssl.create_default_context\n"
        "ssl.create_default_context = lambda *a, **k: calls.append(1) or real(*a, **k)\n"
        "from elydora_cli.runtime import client\n"
        "print(len(calls))\n"
        "try:\n"
        "    client.get_agent('https://127.0.0.1:9', None, 'a' * 32, timeout=0.5)\n"
        "except client.TransportError:\n"
        "    pass\n"
        "print(len(calls))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["0", "1"]
