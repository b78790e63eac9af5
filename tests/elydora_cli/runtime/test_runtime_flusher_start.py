"""How the audit hook starts the flusher: without ``site`` where the generator recorded the package directories,
through ``site`` when they moved, and with the HTTP client left out for a local agent."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import time
from pathlib import Path
from types import ModuleType

from elydora_testkit.platforms import NO_NICENESS, SITE_FORCED, posix_only
from elydora_testkit.runtime_helpers import PYTHON, AgentHandle, make_agent

import elydora_cli
from elydora_cli import identity
from elydora_cli.runtime.generate import flusher_path, generate
from elydora_config._platform import locking

PROBE = (
    "print(sys.flags.no_site, 'urllib.request' in sys.modules, 'http.client' in sys.modules,"
    " 'cryptography.hazmat.primitives.asymmetric.ed25519' in sys.modules)\n"
)


def _audit_module(agent: AgentHandle) -> ModuleType:
    spec = importlib.util.spec_from_file_location("generated_audit", agent.path("_elydora_audit.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _spool_events(agent: AgentHandle, count: int) -> None:
    """Run the hook ``count`` times while we hold ``flush.lock``, so the events stay spooled."""
    fd = os.open(agent.path(identity.FLUSH_LOCK), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        locking.flock(fd, locking.LOCK_EX)
        for n in range(count):
            assert agent.run("hook.py", b'{"n": %d}' % n).returncode == 0
    finally:
        os.close(fd)


def _run_flusher(agent: AgentHandle, command: list[str]) -> list[str]:
    """Run the hook's flusher command (its boot code made to report how it ran) to completion."""
    assert command[-1].endswith("sys.exit(main())\n"), command
    boot = command[-1].replace("sys.exit(main())\n", "code = main()\n" + PROBE + "sys.exit(code)\n")
    done = subprocess.run([*command[:-1], boot, str(agent.directory)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def _recorded(agent: AgentHandle) -> list[object]:
    """The ``n`` of every event in the ledger (the hook's envelope around it aside)."""
    lines = agent.path(identity.LEDGER).read_bytes().splitlines()
    return [json.loads(line)["record"]["payload"]["n"] for line in lines]


def test_the_hook_starts_the_flusher_without_site_and_it_records_without_http(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "claudecode", server=None)
    module = _audit_module(agent)
    package_root = os.path.dirname(os.path.dirname(elydora_cli.__file__))
    assert package_root in module.FLUSH_PATH
    command = module.flusher_command()
    assert command[:4] == [PYTHON, "-I", "-S", "-c"]
    _spool_events(agent, 3)
    # signed through cryptography's binding without its public key module (see keys.private_key_from_seed)
    assert _run_flusher(agent, command) == ["0" if SITE_FORCED else "1", "False", "False", "False"]
    assert _recorded(agent) == [0, 1, 2]


def test_a_moved_package_directory_falls_back_to_site(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "claudecode", server=None)
    module = _audit_module(agent)
    module.FLUSH_PATH = (str(tmp_path / "gone"),)  # the recorded directory no longer holds the package
    _spool_events(agent, 1)
    assert _run_flusher(agent, module.flusher_command())[1:] == ["False", "False", "False"]
    assert _recorded(agent) == [0]


def test_another_interpreter_gets_the_flusher_through_site(tmp_path: Path) -> None:
    """Under system scope the hooks' own interpreter runs the flusher: another one than this gets no recorded
    directories, and its boot code looks through ``site``. In user scope this interpreter runs it."""
    other = os.path.abspath(os.path.join(os.sep, "usr", "bin", "some-other-python3"))
    assert flusher_path(PYTHON)  # this interpreter: the directories are known
    assert flusher_path(other) == ()
    files = generate("claudecode", tmp_path / "rt" / "claudecode", other, user_root="")
    source = files["_elydora_audit.py"][0].decode()
    assert "FLUSH_PATH = ()" in source and f"PACKAGE_PYTHON = {other!r}" in source
    files = generate("claudecode", tmp_path / ".elydora" / "claudecode", other)
    assert f"PACKAGE_PYTHON = {os.path.abspath(PYTHON)!r}" in files["_elydora_audit.py"][0].decode()


@posix_only(NO_NICENESS)
def test_the_flusher_runs_nicer_than_the_hook_that_started_it(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, "claudecode", server=None)
    module = _audit_module(agent)
    report = agent.path("niceness")
    # a stand-in flusher that reports its niceness once the hook has had time to lower it
    probe = "import os, sys, time; time.sleep(0.3); open(sys.argv[1] + '/niceness', 'w').write(str(os.nice(0)))"
    module.flusher_command = lambda: [PYTHON, "-c", probe]
    module.PACKAGE_PYTHON = PYTHON
    module.start_flusher()
    deadline = time.monotonic() + 30
    while not report.exists() or not report.read_text():
        assert time.monotonic() < deadline, "the stand-in flusher did not report"
        time.sleep(0.05)
    assert int(report.read_text()) == min(os.nice(0) + module.FLUSH_NICE, 19) > os.nice(0)
