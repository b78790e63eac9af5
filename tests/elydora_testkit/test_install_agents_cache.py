"""The e2e installer's warm-cache check: a stamped tree that no longer runs where it is gets reinstalled."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from elydora_testkit.e2e_harness import INSTALL_SCRIPT


def _installer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("install_agents_under_test", INSTALL_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _venv_tree(folder: Path, interpreter: Path) -> Path:
    (folder / "venv" / "bin").mkdir(parents=True)
    (folder / "venv" / "pyvenv.cfg").write_text(f"home = {Path(sys.executable).parent}\nversion = 3\n")
    script = folder / "venv" / "bin" / "agent"
    script.write_text(f"#!{interpreter}\nprint('hi')\n")
    return script


def test_a_venv_whose_scripts_name_another_folder_is_reinstalled(tmp_path: Path) -> None:
    installer = _installer()
    here = tmp_path / "cache" / "letta" / "1.0"
    good = here / "venv" / "bin" / "python3"
    script = _venv_tree(here, good)
    good.symlink_to(sys.executable)
    entry = {"version": "1.0"}
    installer.write_stamp(here, entry)
    assert installer.moved(here, script) is None and installer.stamp_ok(here, entry, script)

    other = tmp_path / "cache-helper" / "letta" / "1.0" / "venv" / "bin" / "python3"
    other.parent.mkdir(parents=True)
    other.symlink_to(sys.executable)
    script.write_text(f"#!{other}\nprint('hi')\n")  # hard-linked from a helper's cache
    assert "another folder's venv" in installer.moved(here, script)
    assert not installer.stamp_ok(here, entry, script)
    other.unlink()  # the helper's cache deleted: the interpreter is gone
    assert "does not exist" in installer.moved(here, script)


def test_a_venv_whose_base_interpreter_is_gone_is_reinstalled(tmp_path: Path) -> None:
    installer = _installer()
    here = tmp_path / "letta" / "1.0"
    script = _venv_tree(here, here / "venv" / "bin" / "python3")
    (here / "venv" / "bin" / "python3").symlink_to(sys.executable)
    (here / "venv" / "pyvenv.cfg").write_text(f"home = {tmp_path / 'gone'}\n")
    assert "base interpreter folder" in installer.moved(here, script)


def test_npm_launchers_and_binaries_pass(tmp_path: Path) -> None:
    installer = _installer()
    launcher = tmp_path / "node_modules" / ".bin" / "gemini"
    launcher.parent.mkdir(parents=True)
    launcher.write_text("#!/usr/bin/env node\nconsole.log(1)\n")
    binary = tmp_path / "grok"
    binary.write_bytes(b"\x7fELF\x02\x01\x01" + os.urandom(16))
    assert installer.moved(tmp_path, launcher) is None and installer.moved(tmp_path, binary) is None


def test_a_stamped_dependency_folder_is_kept(tmp_path: Path) -> None:
    installer = _installer()
    (tmp_path / "node_modules").mkdir()
    installer.write_stamp(tmp_path, {"version": "2"})
    assert installer.stamp_ok(tmp_path, {"version": "2"}, tmp_path / "node_modules")
    assert not installer.stamp_ok(tmp_path, {"version": "3"}, tmp_path / "node_modules")
