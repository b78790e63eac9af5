"""The ``elydora_hooks`` Ansible module, run by the real ``ansible-playbook`` against localhost.

Connection local, inventory ``localhost,``; every path of the install is placed below a sandbox ``root`` in
tmp, seeded with an administrator's Claude Code and Codex managed files, so the machine's /etc is never touched.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from locations import PROJECT_ROOT

from elydora_cli import managed

MODULES = PROJECT_ROOT / "ansible" / "plugins" / "modules"
PLAYBOOK_BIN = shutil.which("ansible-playbook", path=os.path.dirname(sys.executable)) or shutil.which(
    "ansible-playbook"
)
ELYDORA_BIN = shutil.which("elydora", path=os.path.dirname(sys.executable)) or shutil.which("elydora")

pytestmark = [
    pytest.mark.skipif(PLAYBOOK_BIN is None, reason="ansible-playbook is not installed (pip install '.[ansible]')"),
    pytest.mark.skipif(ELYDORA_BIN is None, reason="the elydora CLI is not on PATH"),
    pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="--scope system must run as root"),
]

CLAUDE_ADMIN = '{\n  "permissions": {"deny": ["WebFetch"]},\n  "model": "sonnet"\n}\n'
CODEX_ADMIN = '# fleet policy\nallowed_approval_policies = ["on-request"]\n\n[features]\nweb_search = false\n'


def write_playbook(path: Path, root: Path, state: str, **options: object) -> Path:
    task = {
        "state": state,
        "agents": ["claude", "codex"],
        "scope": "system",
        "timeout": 15,
        "python": sys.executable,
        "root": str(root),
        "executable": ELYDORA_BIN,
        **options,
    }
    play = [
        {
            "hosts": "localhost",
            "connection": "local",
            "gather_facts": False,
            "tasks": [
                {"name": "elydora hooks", "elydora_hooks": task, "register": "hooks"},
                {
                    "name": "facts out",
                    "ansible.builtin.copy": {"content": "{{ ansible_facts.elydora | to_json }}", "dest": "{{ out }}"},
                    "check_mode": False,
                    "diff": False,
                    "changed_when": False,
                },
            ],
        }
    ]
    path.write_text(json.dumps(play))  # JSON is YAML
    return path


def play(tmp: Path, playbook: Path, out: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """``ansible-playbook`` with our module path, its state and temporary files inside ``tmp``."""
    env = {
        **os.environ,
        "ANSIBLE_LIBRARY": str(MODULES),
        "ANSIBLE_HOME": str(tmp / "ansible-home"),
        "ANSIBLE_LOCAL_TEMP": str(tmp / "ansible-tmp"),
        "ANSIBLE_REMOTE_TEMP": str(tmp / "ansible-tmp"),
        "ANSIBLE_CONFIG": str(tmp / "none.cfg"),
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_RETRY_FILES_ENABLED": "0",
        "PATH": f"{os.path.dirname(sys.executable)}:{os.environ.get('PATH', '/usr/bin:/bin')}",
    }
    argv = [str(PLAYBOOK_BIN), "-i", "localhost,", str(playbook), "-e", f"out={out}"]
    argv += ["-e", f"ansible_python_interpreter={sys.executable}", *flags]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300, cwd=tmp)


def run_playbook(tmp: Path, playbook: Path, *flags: str) -> tuple[int, str, dict[str, object]]:
    """Run the playbook; the number of changed tasks from the recap, the output, the facts the module returned."""
    out = tmp / "facts.json"
    out.unlink(missing_ok=True)
    proc = play(tmp, playbook, out, *flags)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    recap = re.search(r"localhost\s*:\s*ok=\d+\s+changed=(\d+)", proc.stdout)
    assert recap is not None, proc.stdout
    return int(recap.group(1)), proc.stdout, json.loads(out.read_text())


def tree(root: Path) -> dict[str, str]:
    """Every regular file below ``root`` and the SHA-256 of its bytes, but the CLI's lock files.

    A lock file (``.elydora/.lock``) notes its last holder on every run, read-only runs included; it is the
    CLI's bookkeeping, not a file the install manages.
    """
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not path.is_symlink() and path.name != ".lock"
    }


def admin_file(root: Path, agent: str) -> Path:
    """The administrator's own managed file: Claude Code's managed-settings.json (ours is a drop-in beside it),
    Codex's requirements.toml (which ours edits)."""
    layer = root / managed.LAYERS[agent].path.lstrip("/")
    return layer.parent.parent / "managed-settings.json" if agent == "claudecode" else layer


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    for agent, text in (("claudecode", CLAUDE_ADMIN), ("codex", CODEX_ADMIN)):
        admin_file(root, agent).parent.mkdir(parents=True)
        admin_file(root, agent).write_text(text)
    return root


def test_present_converges_check_diff_writes_nothing_and_absent_restores_every_byte(
    tmp_path: Path, sandbox: Path
) -> None:
    before = tree(sandbox)
    present = write_playbook(tmp_path / "present.yml", sandbox, "present")

    changed, output, facts = run_playbook(tmp_path, present, "--check", "--diff")
    assert changed == 1
    claude_layer = str(sandbox / managed.LAYERS["claudecode"].path.lstrip("/"))
    assert f"+++ {claude_layer}" in output and "guard.py" in output  # the CLI's unified diff, shown by Ansible
    assert tree(sandbox) == before  # check mode wrote nothing

    changed, output, facts = run_playbook(tmp_path, present, "--diff")
    assert changed == 1
    assert f"+++ {claude_layer}" in output  # diff mode on a real run: the diff of what it applied
    installed = tree(sandbox)
    assert installed != before
    rows = {row["provider"]: row for row in facts["providers"]}  # type: ignore[attr-defined]
    assert rows["claudecode"]["covered"] and rows["codex"]["covered"], facts
    assert "timeout = 15" in (sandbox / managed.LAYERS["codex"].path.lstrip("/")).read_text()

    changed, output, _ = run_playbook(tmp_path, present, "--diff")
    assert changed == 0, output
    assert tree(sandbox) == installed  # the second run rewrote no byte

    absent = write_playbook(tmp_path / "absent.yml", sandbox, "absent")
    changed, _, facts = run_playbook(tmp_path, absent, "--check")
    assert changed == 1 and tree(sandbox) == installed
    changed, _, facts = run_playbook(tmp_path, absent)
    assert changed == 1
    after = tree(sandbox)
    assert {name: after.get(name) for name in before} == before  # every file that was there, byte for byte
    rows = {row["provider"]: row for row in facts["providers"]}  # type: ignore[attr-defined]
    assert not rows["claudecode"]["installed"] and not rows["codex"]["installed"], facts
    changed, _, _ = run_playbook(tmp_path, absent)
    assert changed == 0


def test_a_cli_error_fails_the_task_with_its_error_line(tmp_path: Path, sandbox: Path) -> None:
    layer = admin_file(sandbox, "claudecode")
    layer.write_text('{\n  // a comment the strict JSON of this file does not allow\n  "model": "x"\n}\n')
    playbook = write_playbook(tmp_path / "present.yml", sandbox, "present")
    before = layer.read_bytes()
    proc = play(tmp_path, playbook, tmp_path / "facts.json")
    assert proc.returncode != 0
    assert "Error: claudecode: " in proc.stdout and "a comment is not allowed" in proc.stdout, proc.stdout
    assert layer.read_bytes() == before


def test_the_module_documentation_parses(tmp_path: Path) -> None:
    doc = shutil.which("ansible-doc", path=os.path.dirname(str(PLAYBOOK_BIN)))
    assert doc is not None
    env = {**os.environ, "ANSIBLE_LIBRARY": str(MODULES), "ANSIBLE_HOME": str(tmp_path / "h")}
    proc = subprocess.run([doc, "--json", "elydora_hooks"], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    options = json.loads(proc.stdout)["elydora_hooks"]["doc"]["options"]
    spec = importlib.util.spec_from_file_location("elydora_hooks", MODULES / "elydora_hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert set(options) == set(module.ARGUMENT_SPEC)
    for name, option in module.ARGUMENT_SPEC.items():
        assert options[name]["type"] == option["type"], name
        assert options[name].get("choices") == option.get("choices"), name


def test_server_binding_of_each_user_converges_and_check_mode_writes_nothing(tmp_path: Path, sandbox: Path) -> None:
    from elydora_testkit.fake_elydora_server import FakeElydora, ServerState

    from elydora_config import keys

    user = pwd.getpwuid(os.getuid())
    home = managed.user_home(user.pw_dir, sandbox)
    home.mkdir(parents=True)
    server = FakeElydora(ServerState(token="tok-ansible-0123456789", org_id="org-1")).start()
    try:
        secrets = tmp_path / "secrets"
        secrets.mkdir(mode=0o700)
        for agent in ("claudecode", "codex"):
            key = keys.generate_private_key()
            server.state.add_agent(managed.user_dir_name(agent, user.pw_name), "org-1", f"{agent}-k1", key.public_key())
            key_file = secrets / f"{agent}@{user.pw_name}.key"
            key_file.write_text(keys.encode_private_key(key) + "\n")
            key_file.chmod(0o600)
        (secrets / "token").write_text(server.state.token + "\n")
        (secrets / "token").chmod(0o600)
        binding = {
            "users": [user.pw_name],
            "server": {"base_url": server.base_url, "org_id": "org-1", "kid": "{agent}-k1",
                       "token_file": str(secrets / "token"), "private_key_file": str(secrets / "{agent}@{user}.key")},
        }
        playbook = write_playbook(tmp_path / "bound.yml", sandbox, "present", **binding)
        before = tree(sandbox)
        changed, output, _ = run_playbook(tmp_path, playbook, "--check", "--diff")
        assert changed == 1 and f"elydora agent provision claudecode@{user.pw_name}" in output
        assert tree(sandbox) == before  # check mode wrote nothing, the users' states included
        changed, output, facts = run_playbook(tmp_path, playbook)
        assert changed == 1
        assert server.state.token not in output
        state = home / ".elydora" / managed.user_dir_name("codex", user.pw_name)
        config = json.loads((state / "config.json").read_text())
        assert (config["base_url"], config["kid"], config["agent_id"]) == (server.base_url, "codex-k1", state.name)
        rows = {row["provider"]: row for row in facts["providers"]}  # type: ignore[attr-defined]
        assert rows["codex"]["bound_users"][user.pw_name]["delivering"], rows["codex"]
        converged = tree(sandbox)
        changed, output, _ = run_playbook(tmp_path, playbook, "--check", "--diff")
        assert changed == 0, output
        changed, output, _ = run_playbook(tmp_path, playbook)
        assert changed == 0, output
        assert tree(sandbox) == converged  # the second run rewrote no byte
    finally:
        server.stop()


def test_server_binding_refusal_fails_the_task_with_the_cli_error(tmp_path: Path, sandbox: Path) -> None:
    user = pwd.getpwuid(os.getuid())
    managed.user_home(user.pw_dir, sandbox).mkdir(parents=True)
    (tmp_path / "token").write_text("tok-x-0123456789\n")
    (tmp_path / "token").chmod(0o640)  # readable by the group: refused before any request
    binding = {
        "users": [user.pw_name],
        "server": {"base_url": "http://127.0.0.1:9", "org_id": "o", "kid": "k", "token_file": str(tmp_path / "token"),
                   "private_key_file": str(tmp_path / "absent.key")},
    }
    proc = play(tmp_path, write_playbook(tmp_path / "bound.yml", sandbox, "present", **binding), tmp_path / "f.json")
    assert proc.returncode != 0
    assert "Error: " in proc.stdout and "token file is accessible by other users" in proc.stdout, proc.stdout
    assert "tok-x-0123456789" not in proc.stdout + proc.stderr


def test_repair_timer_in_user_scope_converges(tmp_path: Path) -> None:
    """``repair_timer: true`` writes the user's timer once (check mode first writes nothing), a second run
    changes nothing, ``false`` removes it; the timer's repair restores a removed entry (test_cmd_repair.py)."""
    home = tmp_path / "home"
    home.mkdir()
    units = home / ".config" / "systemd" / "user"

    def playbook(on: bool) -> Path:
        return write_playbook(tmp_path / f"timer-{on}.yml", home, "present", agents=["claude"], scope="user",
                              repair_timer=on)

    changed, _, _ = run_playbook(tmp_path, playbook(True), "--check")
    assert changed == 1 and not units.exists()
    changed, output, facts = run_playbook(tmp_path, playbook(True))
    assert changed == 1 and (units / "elydora-repair.timer").exists(), output
    assert facts["repair"]["timer"]["kind"] == "systemd", facts  # type: ignore[index]
    changed, output, _ = run_playbook(tmp_path, playbook(True))
    assert changed == 0, output
    changed, _, _ = run_playbook(tmp_path, playbook(False))
    assert changed == 1 and not (units / "elydora-repair.timer").exists()
