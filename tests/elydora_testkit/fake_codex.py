"""A stand-in ``codex`` executable speaking the ``codex app-server`` JSON-RPC subset Elydora uses.

``initialize`` -> a result; the ``initialized`` notification; ``hooks/list {"cwds": [...]}`` -> every handler of
``$CODEX_HOME/hooks.json`` with ``key`` (``<path>:<event snake>:<group>:<handler>``), a ``currentHash`` of the
fake's own making (path-independent, as Codex's is) and ``trustStatus`` from ``hooks.state`` in
``$CODEX_HOME/config.toml``. A notification precedes each answer, as Codex sends them. ``FAKE_CODEX_MODE``:
``ok``, ``hang`` (never answers), ``exit`` (exits at once), ``garbage`` (answers non-JSON), ``disabled``
(lists every hook as disabled), ``hide`` (lists no hook).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import time
from pathlib import Path
from typing import Any

EVENTS = {"PreToolUse": "pre_tool_use", "PostToolUse": "post_tool_use"}


def install_fake(bin_dir: Path, mode: str = "ok") -> Path:
    """Write ``bin_dir/codex`` running this fake with ``mode``; returns its path."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    exe = bin_dir / "codex"
    exe.write_text(
        f"#!/bin/sh\nFAKE_CODEX_MODE={mode} exec '{sys.executable}' '{Path(__file__).resolve()}' \"$@\"\n"
    )
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return exe


def fake_hash(event: str, matcher: Any, handler: Any) -> str:
    data = json.dumps({"event": event, "matcher": matcher, "handler": handler}, sort_keys=True)
    return "sha256:" + hashlib.sha256(data.encode()).hexdigest()


def _hooks(mode: str) -> list[dict[str, Any]]:
    import tomlkit

    home = Path(os.environ["CODEX_HOME"])
    path = home / "hooks.json"
    config = home / "config.toml"
    state = tomlkit.parse(config.read_text()).unwrap().get("hooks", {}).get("state", {}) if config.exists() else {}
    data = json.loads(path.read_text()) if path.exists() else {}
    listed = []
    for event, snake in EVENTS.items():
        for gi, group in enumerate(data.get("hooks", {}).get(event, [])):
            for hi, handler in enumerate(group.get("hooks", [])):
                key = f"{path}:{snake}:{gi}:{hi}"
                current = fake_hash(event, group.get("matcher"), handler)
                stored = state.get(key, {}).get("trusted_hash")
                trust = "untrusted" if stored is None else "trusted" if stored == current else "modified"
                listed.append({"key": key, "currentHash": current, "trustStatus": trust,
                               "enabled": mode != "disabled", "sourcePath": str(path)})
    return [] if mode == "hide" else listed


def main() -> int:
    mode = os.environ.get("FAKE_CODEX_MODE", "ok")
    if sys.argv[1:] != ["app-server"] or mode == "exit":
        return 3
    for line in sys.stdin:
        message = json.loads(line)
        if mode == "hang":
            time.sleep(60)
        if mode == "garbage":
            print("this is not JSON", flush=True)
            continue
        print(json.dumps({"method": "configWarning", "params": {"summary": "fake"}}), flush=True)
        if message.get("method") == "initialize":
            print(json.dumps({"id": message["id"], "result": {"userAgent": "fake"}}), flush=True)
        elif message.get("method") == "hooks/list":
            result = {"data": [{"cwd": c, "hooks": _hooks(mode)} for c in message["params"]["cwds"]]}
            print(json.dumps({"id": message["id"], "result": result}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
