"""Cline specifics: the hook files (marker, layout, mode), where they go, ownership, status, and the Node
wrapper's protocol run for real (allow, cancel JSON on a guard exit 2, fail-open on every other failure)."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from elydora_testkit.provider_cases import make_context, payload, run_as_agent, set_status

from elydora_cli.installer import operations
from elydora_cli.plug.common import RefusedError
from elydora_cli.plug.context import Context
from elydora_cli.plug.documents import Documents
from elydora_cli.providers import cline
from elydora_cli.runtime.stubs import stub_time
from elydora_config.errors import ConcurrentModificationError, MalformedConfigError, UnsafePathError

PY = sys.executable
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")


def hooks(ctx: Context) -> Path:
    return ctx.home / ".cline" / "hooks"


def marker_json(path: Path) -> str:
    line = path.read_text().split("\n")[1]
    assert line.startswith("// @elydora-cline-hook ")
    encoded = line.split(" ")[-1]
    assert "=" not in encoded
    return base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode()


def reference_file(agent_id: str, kind: str, runtime: str) -> str:
    raw = json.dumps({"version": 1, "kind": kind, "agentId": agent_id, "runtimePath": runtime}, separators=(",", ":"))
    encoded = base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")
    return f"#!/usr/bin/env node\n// @elydora-cline-hook {encoded}\n// the reference template\n"


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    return make_context(tmp_path)


def test_install_writes_two_marked_executable_modules(ctx: Context) -> None:
    operations.install("cline", ctx)
    agent = f"{ctx.home}/.elydora/cline"
    for event, kind, script in (("PreToolUse", "guard", "guard.py"), ("PostToolUse", "audit", "hook.py")):
        path = hooks(ctx) / f"{event}.mjs"
        assert path.read_text().startswith("#!/usr/bin/env node\n// @elydora-cline-hook ")
        assert marker_json(path) == (
            f'{{"version":2,"kind":"{kind}","agentId":"cline","runtimePath":"{agent}/{script}","python":"{PY}"}}'
        )
        assert f"const KIND = {json.dumps(kind)};\nconst PYTHON = {json.dumps(PY)};\n" in path.read_text()
        assert f'const RUNTIME = "{agent}/{script}";\nconst FLAGS = ["-I", "-S"];\n' in path.read_text()
        assert path.stat().st_mode & 0o777 == 0o700
    assert sorted(p.name for p in hooks(ctx).iterdir()) == ["PostToolUse.mjs", "PreToolUse.mjs"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, "HOME/.cline/hooks"),
        ("", "HOME/.cline/hooks"),
        ("   ", "HOME/.cline/hooks"),
        ("  /opt/cline  ", "HOME/opt/cline/hooks"),  # absolute paths are placed below --root
        ("rel/cline", "REPO/rel/cline/hooks"),
    ],
)
def test_hooks_directory(tmp_path: Path, value: str | None, expected: str) -> None:
    env = {} if value is None else {"CLINE_DIR": value}
    ctx = make_context(tmp_path, env)
    want = expected.replace("HOME", str(ctx.home)).replace("REPO", str(ctx.repo_root))
    assert [t.path for t in cline.sources(ctx).targets] == [
        Path(want) / "PreToolUse.mjs",
        Path(want) / "PostToolUse.mjs",
    ]


def test_absolute_cline_dir_without_root(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, {"CLINE_DIR": "/opt/cline"}).with_options(rooted=False)
    assert cline.hooks_dir(ctx) == Path("/opt/cline/hooks")


def test_a_symlinked_hooks_directory_is_refused(ctx: Context, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (ctx.home / ".cline").mkdir()
    hooks(ctx).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UnsafePathError):
        operations.install("cline", ctx)
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_file_without_the_marker_belongs_to_someone_else(ctx: Context) -> None:
    hooks(ctx).mkdir(parents=True)
    (hooks(ctx) / "PostToolUse.mjs").write_text("#!/usr/bin/env node\n// my own hook\n")
    with pytest.raises(RefusedError) as refused:
        operations.install("cline", ctx)
    assert refused.value.path == str(hooks(ctx) / "PostToolUse.mjs")
    assert "owned by another integration" in refused.value.reason
    assert [p.name for p in hooks(ctx).iterdir()] == ["PostToolUse.mjs"]
    assert not ctx.elydora_dir.exists()
    operations.uninstall("cline", ctx)
    assert (hooks(ctx) / "PostToolUse.mjs").read_text() == "#!/usr/bin/env node\n// my own hook\n"


@pytest.mark.parametrize("encoded", ["!!!", "e30", "eyJ2ZXJzaW9uIjozfQ", "eyJ2ZXJzaW9uIjoxfQ"])
def test_a_broken_marker_is_an_error_and_the_file_stays(ctx: Context, encoded: str) -> None:
    hooks(ctx).mkdir(parents=True)
    text = f"#!/usr/bin/env node\n// @elydora-cline-hook {encoded}\n"
    (hooks(ctx) / "PreToolUse.mjs").write_text(text)
    for operation in (operations.install, operations.uninstall):
        with pytest.raises(MalformedConfigError) as error:
            operation("cline", ctx)
        assert "Elydora marker is unreadable" in error.value.reason
        assert (hooks(ctx) / "PreToolUse.mjs").read_text() == text
    assert any("marker is unreadable" in f.message for f in cline.check(load(ctx), ctx, "cline"))


def load(ctx: Context) -> Documents:
    return operations.load_documents(None, cline, ctx)


def test_files_of_the_reference_installer_are_replaced_and_reported(ctx: Context) -> None:
    hooks(ctx).mkdir(parents=True)
    guard = hooks(ctx) / "PreToolUse.mjs"
    guard.write_text(reference_file("cline", "guard", f"{ctx.home}/.elydora/cline/guard.py"))
    assert [f.message for f in cline.check(load(ctx), ctx, "cline")] == [
        "was written by the Python SDK installer; run `elydora install cline` to replace it",
        "is not executable, so Cline does not run it",
        "is missing: Cline runs no Elydora audit hook",
    ]
    operations.install("cline", ctx)
    assert marker_json(guard).startswith('{"version":2,"kind":"guard"')
    guard.write_text(reference_file("cline", "guard", f"{ctx.home}/.elydora/cline/guard.py"))
    operations.uninstall("cline", ctx)
    assert list(hooks(ctx).iterdir()) == []


def test_uninstall_removes_only_the_named_agents_files(ctx: Context) -> None:
    operations.install("cline", ctx)
    (hooks(ctx) / "PreToolUse.py").write_text("print('mine')\n")
    operations.uninstall("cline", ctx.with_options(agent_id="other"))
    assert sorted(p.name for p in hooks(ctx).iterdir()) == ["PostToolUse.mjs", "PreToolUse.mjs", "PreToolUse.py"]
    operations.uninstall("cline", ctx)
    assert [p.name for p in hooks(ctx).iterdir()] == ["PreToolUse.py"]
    assert stub_time(ctx.agent_dir("cline") / "guard.py") is not None  # an inert stub (issue 13), not the guard
    assert not (ctx.agent_dir("cline") / "_elydora_guard.py").exists()


def test_a_changed_file_blocks_uninstall_so_the_runtime_stays(ctx: Context) -> None:
    operations.install("cline", ctx)
    changed = hooks(ctx) / "PostToolUse.mjs"
    changed.write_text(changed.read_text() + "// my change\n")
    with pytest.raises(RefusedError) as refused:
        operations.uninstall("cline", ctx)
    assert "changed after Elydora wrote it" in refused.value.reason
    assert (hooks(ctx) / "PreToolUse.mjs").exists() and (ctx.agent_dir("cline") / "guard.py").exists()
    assert [f.render() for f in operations.status("cline", ctx).findings] == [
        f"{changed}: differs from what this version generates (edited?); run `elydora install cline`"
    ]
    operations.install("cline", ctx)  # the marker makes it ours: install restores it
    operations.uninstall("cline", ctx)
    assert not hooks(ctx).exists()  # created by the install, removed once empty


def test_status_names_each_problem(ctx: Context) -> None:
    operations.install("cline", ctx)
    assert operations.status("cline", ctx).healthy
    (hooks(ctx) / "PreToolUse.mjs").chmod(0o600)
    os.unlink(hooks(ctx) / "PostToolUse.mjs")
    assert sorted(f.render() for f in operations.status("cline", ctx).findings) == [
        f"{hooks(ctx)}/PostToolUse.mjs: is missing: Cline runs no Elydora audit hook",
        f"{hooks(ctx)}/PreToolUse.mjs: is not executable, so Cline does not run it",
    ]
    other = ctx.with_options(agent_id="second")
    findings = [f.message for f in cline.check(load(ctx), other, "second")]
    assert "the agent id is 'cline', expected 'second'" in findings
    wrong_path = f"the runtime path is '{ctx.home}/.elydora/cline/guard.py', expected '{ctx.home}/.elydora/second/"
    assert any(f.startswith(wrong_path) for f in findings)


def test_a_change_to_a_hook_file_before_commit_aborts(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    from elydora_config.transaction import Transaction

    hooks(ctx).mkdir(parents=True)
    guard = hooks(ctx) / "PreToolUse.mjs"
    guard.write_text(reference_file("cline", "guard", f"{ctx.home}/.elydora/cline/guard.py"))
    original = Transaction.commit

    def commit_after_a_change(self: Transaction) -> str | None:
        guard.write_text("#!/usr/bin/env node\n// someone else now\n")
        return original(self)

    monkeypatch.setattr(Transaction, "commit", commit_after_a_change)
    with pytest.raises(ConcurrentModificationError):
        operations.install("cline", ctx)
    assert guard.read_text() == "#!/usr/bin/env node\n// someone else now\n"
    assert [p.name for p in hooks(ctx).iterdir()] == ["PreToolUse.mjs"]


# -- the wrapper, run by Node -----------------------------------------------------------------------------


def fake_hook(tmp_path: Path, kind: str, body: str, python: str = PY) -> Path:
    """A hook file rendered for a stand-in runtime: ``body`` runs after stdin was saved to ``received``."""
    runtime = tmp_path / f"fake-{kind}.py"
    runtime.write_text(
        "import os, sys\n"
        f"open({str(tmp_path / 'received')!r}, 'wb').write(sys.stdin.buffer.read())\n"
        f"open({str(tmp_path / 'flags')!r}, 'w').write(repr((sys.flags.isolated, sys.flags.no_site)))\n" + body
    )
    hook = tmp_path / f"{kind}.mjs"
    hook.write_text(cline.render(cline.Marker(kind, "cline", str(runtime), python)))
    hook.chmod(0o700)
    return hook


def run_node(hook: Path, data: bytes = b'{"x": 1}') -> subprocess.CompletedProcess[bytes]:
    return run_as_agent(["node", str(hook)], data)


@needs_node
def test_wrapper_passes_stdin_through_and_keeps_stdout_clean(tmp_path: Path) -> None:
    hook = fake_hook(tmp_path, "guard", "print('child stdout'); sys.stderr.write('child stderr\\n')\n")
    data = payload("cline", "PreToolUse")
    result = run_node(hook, data)
    assert (result.returncode, result.stdout) == (0, b"")
    assert sorted(result.stderr.splitlines()) == [b"child stderr", b"child stdout"]  # both go to stderr
    assert (tmp_path / "received").read_bytes() == data
    assert (tmp_path / "flags").read_text() == "(1, 1)"
    direct = run_as_agent([str(hook)], data)  # the #!/usr/bin/env node line, as Cline runs it
    assert (direct.returncode, direct.stdout) == (0, b"")


@needs_node
@pytest.mark.parametrize(
    ("stderr", "message"), [("  Blocked: frozen.\n", "Blocked: frozen."), ("", "Agent is frozen by Elydora.")]
)
def test_guard_exit_2_becomes_the_cancel_json(tmp_path: Path, stderr: str, message: str) -> None:
    hook = fake_hook(tmp_path, "guard", f"sys.stderr.write({stderr!r}); sys.exit(2)\n")
    result = run_node(hook)
    assert result.returncode == 0
    assert (
        result.stdout == json.dumps({"cancel": True, "errorMessage": message}, separators=(",", ":")).encode() + b"\n"
    )


@needs_node
@pytest.mark.parametrize(
    ("kind", "body", "reason"),
    [
        ("guard", "sys.exit(3)\n", "the runtime exited with status 3"),
        ("audit", "sys.exit(2)\n", "the runtime exited with status 2"),
        ("audit", "sys.exit(1)\n", "the runtime exited with status 1"),
        ("guard", "import signal; os.kill(os.getpid(), signal.SIGKILL)\n", "the runtime was stopped by SIGKILL"),
    ],
)
def test_other_failures_fail_open(tmp_path: Path, kind: str, body: str, reason: str) -> None:
    result = run_node(fake_hook(tmp_path, kind, body))
    assert (result.returncode, result.stdout) == (1, b"")
    assert result.stderr.decode().endswith(f"Elydora Cline {kind} wrapper failed: {reason}\n")


@needs_node
def test_missing_interpreter_or_runtime_fails_open(tmp_path: Path) -> None:
    missing_python = run_node(fake_hook(tmp_path, "guard", "", python=str(tmp_path / "no-python")))
    assert (missing_python.returncode, missing_python.stdout) == (1, b"")
    assert b"Elydora Cline guard wrapper failed: cannot run " in missing_python.stderr
    hook = fake_hook(tmp_path, "audit", "")
    (tmp_path / "fake-audit.py").unlink()
    missing_runtime = run_node(hook)
    assert (missing_runtime.returncode, missing_runtime.stdout) == (1, b"")
    assert missing_runtime.stderr.decode().endswith("fake-audit.py is missing (run: elydora install cline)\n")


@needs_node
def test_installed_guard_denies_through_the_wrapper_only(ctx: Context) -> None:
    """The generated guard speaks exit 2 + stderr; the hook file turns that into Cline's cancel JSON."""
    operations.install("cline", ctx)
    set_status(ctx, "cline", "frozen")
    data = payload("cline", "PreToolUse")
    direct = run_as_agent([PY, "-I", "-S", str(ctx.agent_dir("cline") / "guard.py")], data)
    line = '[Elydora guard] Agent "cline" is frozen in Elydora. Tool execution blocked.'
    assert (direct.returncode, direct.stdout, direct.stderr) == (2, b"", line.encode() + b"\n")
    wrapped = run_as_agent(cline.agent_argv(str(hooks(ctx) / "PreToolUse.mjs"), ctx), data)
    assert wrapped.returncode == 0
    assert json.loads(wrapped.stdout) == {"cancel": True, "errorMessage": line}


def test_status_names_a_missing_interpreter(ctx: Context, tmp_path: Path) -> None:
    gone = str(tmp_path / "gone" / "python3")
    operations.install("cline", ctx.with_options(python=gone))
    messages = [f.message for f in cline.check(load(ctx), ctx, "cline")]
    assert messages == [f"runs the interpreter {gone}, which does not exist or is not executable"] * 2
