"""Read-only commands import only what they use: each runs in its own interpreter against a home with every
agent installed, and the modules loaded by the end of the run are checked.

No transaction machinery (transaction, commit, undo, journal, snapshot, recovery, the state lock and filelock),
no tomlkit (the TOML editor's fallback) and no cryptography, except where the command's own path needs it:
``agent show`` prints the public key, which is derived from the private key by cryptography. A status over our
own files reads them without ``tomllib`` (the plain TOML subset is decoded by the TOML document itself).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import elydora_cli
from elydora_cli import catalog

WRAPPER = """
import json, runpy, sys
out = sys.argv.pop(1)
sys.argv[0] = "elydora"
try:
    runpy.run_module("elydora_cli", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    code = exc.code
with open(out, "w", encoding="utf-8") as fh:
    json.dump({"code": code, "modules": sorted(sys.modules)}, fh)
"""

BARE_WRAPPER = """
import json, sys
out = sys.argv.pop(1)
sys.argv[0] = "elydora"
from elydora_cli.main import main
code = main()
with open(out, "w", encoding="utf-8") as fh:
    json.dump({"code": code, "modules": sorted(sys.modules)}, fh)
"""
"""The command called directly: runpy (``WRAPPER``) loads contextlib and importlib.util itself."""

TRANSACTIONS = (
    "elydora_config.transaction",
    "elydora_config._commit",
    "elydora_config._undo",
    "elydora_config.journal",
    "elydora_config.snapshot",
    "elydora_config.recovery",
    "elydora_config.lock",
    "filelock",
)
TOML_EDITOR = ("tomlkit", "elydora_config.toml._tomlkit_edit")
CRYPTOGRAPHY = ("cryptography",)
READ_ONLY = (*TRANSACTIONS, *TOML_EDITOR, *CRYPTOGRAPHY)


def _loaded(modules: list[str], forbidden: tuple[str, ...]) -> list[str]:
    return [name for name in modules if any(name == bad or name.startswith(bad + ".") for bad in forbidden)]


def _run(tmp_path: Path, *args: str, path: str | None = None, site: bool = True,
         runpy: bool = True) -> tuple[int, list[str]]:
    """Run ``elydora <args>``; ``site=False``: without :mod:`site` (whose ``.pth`` hooks may import modules into
    every interpreter), the project found through ``PYTHONPATH``, and without runpy (``BARE_WRAPPER``);
    ``runpy=False``: without runpy alone."""
    out = tmp_path / "modules.json"
    env = {key: value for key, value in os.environ.items() if not key.startswith(("ELYDORA", "PYTHON"))}
    if path is not None:
        env["PATH"] = path
    flags = [] if site else ["-S"]
    if not site:
        env["PYTHONPATH"] = str(Path(elydora_cli.__file__).resolve().parent.parent)
    subprocess.run(
        [sys.executable, *flags, "-c", WRAPPER if site and runpy else BARE_WRAPPER, str(out), *args],
        capture_output=True,
        check=False, env=env,
        cwd=tmp_path,
    )
    result = json.loads(out.read_text(encoding="utf-8"))
    return int(result["code"] or 0), list(result["modules"])


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A settings root with every supported agent installed."""
    home = tmp_path_factory.mktemp("import-sets")
    code, modules = _run(home, "install", "--every", "--root", str(home))
    assert code == 0
    # the check can fail: a writing command does load what the read-only ones must not
    assert _loaded(modules, TRANSACTIONS) and _loaded(modules, CRYPTOGRAPHY)
    assert len(catalog.provider_ids()) == 22
    return home


@pytest.mark.parametrize(
    ("args", "used", "forbidden"),
    [
        (("status",), "elydora_config.toml._plain", READ_ONLY),  # codex's config.toml was read
        (("verify", "--all"), "elydora_config.toml._plain", READ_ONLY),
        (("audit", "tail", "--provider", "claudecode"), "elydora_cli.runtime.ledger", READ_ONLY),
        (("agent", "show", "--provider", "claudecode"), "elydora_cli.identity", (*TRANSACTIONS, *TOML_EDITOR)),
    ],
    ids=["status", "verify", "audit tail", "agent show"],
)
def test_read_only_command_imports(home: Path, args: tuple[str, ...], used: str, forbidden: tuple[str, ...]) -> None:
    code, modules = _run(home, *args, "--root", str(home))
    assert code in (0, 1)  # 1: an agent awaits approval (codex), which status and verify report
    assert used in modules  # the command did its work
    assert _loaded(modules, forbidden) == []


START_UP = (
    "dataclasses",  # records (elydora_config.records) instead: no code compiled per class, no inspect/ast
    "inspect",
    "importlib.resources",  # package data read beside the code (elydora_cli.packagedata): no tempfile/zipfile
    "tempfile",
    "shutil",  # executables found by elydora_cli.executables; argparse given the terminal width
    "zipfile",
    "subprocess",  # the agents' own introspection only when their executable is at hand
    "hashlib",  # no key id is computed, no record is hashed
    "tomllib",  # our TOML is in the plain subset (elydora_config.toml._plain): no tomllib or string
    "datetime",  # TOML values need it only for a date or time value
    "importlib.util",  # the providers folder is listed once; the flusher's modules found by sys.meta_path
    "unicodedata",  # only for a renamed Qoder folder
    "shlex",  # Codex's advice (`elydora install codex --trust ...`) is quoted word by word without it
    "base64",  # the private key is checked with binascii alone (base64 would load struct too)
    "elydora_cli.runtime.templates.guard",  # its flat-object reader is templates/flatreader.py, imported alone
    "select",  # the guard template's
    "urllib.parse",  # pathlib is imported without it (elydora_cli/pathlibstart.py); identity imports it for a URL
    "ipaddress",  # urllib.parse's
    "fcntl",  # the flusher's lock is probed in /proc/locks; the drop markers are read without locking
    "encodings.utf_16_le",  # an encoded PowerShell command is decoded by the codec function itself
    "elydora_cli.runtime.stubs",  # read only for an agent whose guard script is there without a manifest
)


YAML_AGENTS = ("hermes",)
"""Agents whose config is YAML: reading it loads PyYAML (one of the heavy modules imported on first use)."""


def test_status_imports_nothing_it_does_not_run(home: Path, tmp_path: Path) -> None:
    """With no agent executable on PATH (so no agent is asked), a status of every agent whose config is not
    YAML loads none of the modules that used to make up most of its start-up."""
    empty = tmp_path / "bin"
    empty.mkdir()
    agents = [agent for agent in catalog.provider_ids() if agent not in YAML_AGENTS]
    code, modules = _run(home, "status", *agents, "--root", str(home), path=str(empty), runpy=False)
    assert "yaml" not in modules
    assert code in (0, 1) and "elydora_cli.health" in modules
    # what the interpreter's own start-up loads here (a site-packages .pth may import some of these) is not ours
    env = {key: value for key, value in os.environ.items() if not key.startswith(("ELYDORA", "PYTHON"))}
    bare = subprocess.run(
        [sys.executable, "-c", "import json, sys; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True, text=True, check=True, env={**env, "PATH": str(empty)},
    )
    ours = sorted(set(modules) - set(json.loads(bare.stdout)))
    assert _loaded(ours, (*READ_ONLY, *START_UP)) == []


def test_pyyaml_is_loaded_only_for_a_yaml_config(home: Path) -> None:
    """PyYAML is imported on first use: by a status of an agent whose config is YAML, by no other."""
    code, modules = _run(home, "status", *YAML_AGENTS, "--root", str(home))
    assert code in (0, 1) and "yaml" in modules
    code, modules = _run(home, "status", "claudecode", "--root", str(home))
    assert code in (0, 1) and "yaml" not in modules


def test_status_imports_no_urllib_even_without_site(home: Path, tmp_path: Path) -> None:
    """Without site, so that no ``.pth`` hook of the machine imports it first: a status of every agent (JSON, TOML
    and folder configs alike) loads no :mod:`urllib.parse` (pathlib is imported without it)."""
    empty = tmp_path / "bin"
    empty.mkdir()
    code, modules = _run(home, "status", "--root", str(home), path=str(empty), site=False)
    # 1: without site, the runtime's recorded module path differs from the install's (the check ran in full)
    assert code in (0, 1) and "elydora_config.toml._plain" in modules and "elydora_config.jsonc._document" in modules
    assert _loaded(modules, ("urllib.parse", "ipaddress")) == []  # nor pathlib's urllib.parse, without site either


def test_hooks_capabilities_imports(tmp_path: Path) -> None:
    code, modules = _run(tmp_path, "hooks", "capabilities")
    assert code == 0
    assert _loaded(modules, (*READ_ONLY, "elydora_config.jsonc", "elydora_cli.providers")) == []
