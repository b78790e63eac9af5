"""Hook runtime latency: the guard (status cached) and the audit hook against a bare interpreter start.

Run from the project root: ``python -m benchmarks.hooks``. Every command runs round-robin with the
baseline ``<python> -I -S -c pass`` (same interpreter, same run), so machine noise hits them alike.
Goals (goals.md): guard <= 1.5x, audit <= 2x the baseline median.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Figure, await_count, finish, interleaved_command_times, line_count, report
from elydora_cli import identity
from elydora_cli.health import flusher_alive
from elydora_cli.runtime import bytecode, generate, runtime_argv
from elydora_cli.runtime.refresh import cache_bytes
from elydora_config import files, keys, paths

REPEAT = int(os.environ.get("BENCH_REPEAT", "41"))
WARMUP = 3


def _agent(root: Path, agent_id: str, base_url: str | None) -> Path:
    directory = Path(identity.agent_dir(root, agent_id))
    paths.ensure_directory(directory)
    key = keys.generate_private_key()
    org = "local" if base_url is None else "org-bench"
    config = identity.AgentConfig(org, agent_id, identity.key_id(key), base_url, "claudecode", None)
    files.write_atomic(directory / identity.CONFIG, config.to_bytes(), mode=0o600)
    files.write_atomic(directory / identity.PRIVATE_KEY, (keys.encode_private_key(key) + "\n").encode(), mode=0o600)
    if base_url is None:
        files.write_atomic(directory / identity.STATUS, identity.status_bytes("active", None), mode=0o600)
    _write_runtime(directory, generate("claudecode", directory, sys.executable))
    return directory


def _write_runtime(directory: Path, generated: dict[str, tuple[bytes, int]]) -> None:
    """The generated files and the bytecode of their modules, as install writes them."""
    for name, (data, mode) in generated.items():
        files.write_atomic(directory / name, data, mode=mode)
    sources = {name: data for name, (data, _) in generated.items()}
    for name, data in bytecode.compiled(sys.executable, str(directory), sources).items():
        files.write_atomic(directory / name, data, mode=generated[name.partition(".")[0] + ".py"][1])


def _system_runtime(root: Path) -> Path:
    """A ``--scope system`` runtime below ``root``: root-owned launchers deciding from the policy file."""
    from elydora_cli import managed

    directory = managed.placed(managed.RUNTIME_ROOT, root) / "claudecode"
    paths.ensure_directory(directory, mode=managed.DIR_MODE)
    _write_runtime(directory, generate("claudecode", directory, sys.executable, user_root=str(root)))
    policy = directory / managed.SYSTEM_STATUS
    files.write_atomic(policy, identity.status_bytes("active", None), mode=managed.POLICY_MODE)
    return directory


def _event(payload: dict[str, object]) -> bytes:
    return json.dumps(payload).encode()


def _flusher_idle(directory: Path) -> bool:
    return not flusher_alive(str(directory))


def _ledger_entries(directory: Path) -> int:
    return line_count(directory / identity.LEDGER)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        server_agent = _agent(root, "bench-server", "http://127.0.0.1:9")
        local_agent = _agent(root, "bench-local", None)
        now = time.time()
        cache = server_agent / identity.STATUS_CACHE
        files.write_atomic(cache, cache_bytes("active", now + 3600, now + 3600), mode=0o600)
        claude = {"session_id": "s", "transcript_path": "/t.jsonl"}  # Claude Code's envelope: the runtime acts
        pre = _event({"hook_event_name": "PreToolUse", **claude, "tool_name": "Bash"})
        post = _event({"hook_event_name": "PostToolUse", **claude, "tool_name": "Bash", "tool_response": "ok"})
        baseline = "python -I -S -c pass"
        commands = {
            baseline: ([sys.executable, "-I", "-S", "-c", "pass"], b""),
            "guard (server, status cached)": (runtime_argv(sys.executable, server_agent / "guard.py"), pre),
            "guard (local status)": (runtime_argv(sys.executable, local_agent / "guard.py"), pre),
            "guard (launcher alone, as Claude Code runs it)": ([str(local_agent / "guard.py")], pre),
            "audit (event spooled)": (runtime_argv(sys.executable, local_agent / "hook.py"), post),
            "guard (system scope, root-owned policy)": ([str(_system_runtime(root) / "guard.py")], pre),
        }
        times = interleaved_command_times(commands, repeat=REPEAT, warmup=WARMUP)
        goals = {"guard (server, status cached)": 1.5, "guard (local status)": 1.5, "audit (event spooled)": 2.0}
        goals["guard (launcher alone, as Claude Code runs it)"] = 1.5
        goals["guard (system scope, root-owned policy)"] = 1.5
        for name, goal in goals.items():
            report(Figure(name, times[name], "s", baseline, times[baseline], goal))
        runs = WARMUP + REPEAT  # every run of the audit hook: warm-ups and samples
        recorded = await_count(lambda: _ledger_entries(local_agent), runs, lambda: _flusher_idle(local_agent))
        report(Figure("audit events recorded in the ledger", recorded, "entries", goal=runs, goal_kind="minimum"))
    finish()


if __name__ == "__main__":
    main()
