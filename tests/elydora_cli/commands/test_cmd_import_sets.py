"""Read-only commands import only what they use: each runs in its own interpreter against a home with every
agent installed, and the modules loaded by the end of the run are checked.

No transaction machinery (transaction, commit, undo, journal, snapshot, recovery, the state lock and filelock),
no tomlkit (the TOML editor's fallback) and no cryptography, except where the command's own path needs it:
``agent show`` prints the public key, which is derived from the private key by cryptography. A status over our
own files reads them without ``tomllib`` (the plain TOML subset is decoded by the TOML document itself).
"""

from __future__ import annotations

import ast
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
EDITING = ("elydora_config.jsonc._editing", "elydora_config.toml._editing")
"""The documents' editing halves: a document that is only read loads neither (nor what they import)."""
READ_ONLY = (*TRANSACTIONS, *TOML_EDITOR, *CRYPTOGRAPHY, *EDITING)


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
        (("agent", "show", "--provider", "claudecode"), "elydora_cli.identity",
         (*TRANSACTIONS, *TOML_EDITOR, *EDITING)),
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
    "base64",  # the private key is checked with binascii alone (base64 would load struct too)
    "elydora_cli.runtime.templates.guard",  # its flat-object reader is templates/flatreader.py, imported alone
    "select",  # the guard template's
    "signal",  # a child's process group is killed only when a probe timed out
    "fcntl",  # the flusher's lock is probed in /proc/locks; the drop markers are read without the spool's locking
    "elydora_cli.plug.provider",  # the plug's protocol: for type checking only
    "elydora_config.jsonc._layout",  # the editing halves' modules (EDITING): only an edit imports them
    "elydora_config.jsonc._edit_plan",
    "elydora_config.jsonc._revalidate",
    "elydora_config.toml._spans",
    "elydora_config.toml._scanner",
    "elydora_config.toml._localcheck",
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


def test_hooks_capabilities_imports(tmp_path: Path) -> None:
    code, modules = _run(tmp_path, "hooks", "capabilities")
    assert code == 0
    assert _loaded(modules, (*READ_ONLY, "elydora_config.jsonc", "elydora_cli.providers")) == []


LAZY = {
    # heavy: what a read-only command must not pay for
    "cryptography": "keys and signatures, only where a key is used",
    "elydora_config.toml._tomlkit_edit": "the TOML editor's fallback (tomlkit)",
    "elydora_config.toml._editing": "the TOML editing half (span editor, its scanner and checks), by a first edit only",
    "elydora_config.jsonc._editing": "the JSONC editing half (layout, splice plans, checks), by a first edit only",
    "elydora_config.yaml": "PyYAML, for the one agent whose config is YAML",
    "elydora_config.Transaction": "the commit engine, not on read-only commands",
    "elydora_config.transaction": "the commit engine (preloaded before privileges are dropped)",
    "elydora_config.journal": "the commit engine (preloaded before privileges are dropped)",
    "elydora_config.lock": "the commit engine (preloaded before privileges are dropped)",
    "elydora_config.files": "the commit engine (preloaded before privileges are dropped)",
    "elydora_config.recovery": "the commit engine, only when a journal is pending",
    "elydora_cli.runtime.flusher": "the signing chain (cryptography), only once there is work",
    "elydora_cli.runtime.flush": "the signing chain (preloaded before privileges are dropped)",
    "elydora_cli.runtime.provision": "the commit engine and a key, on system scope's first use only",
    "elydora_cli.runtime.deliver": "the HTTP client, for a server-bound agent only",
    "elydora_cli.runtime.client": "the HTTP client, for a server-bound agent only",
    "elydora_cli.runtime.binding": "the HTTP client, for agent create/provision with a server only",
    "certifi": "the HTTP client's certificates",
    "structlog": "logging, set up only when something is logged",
    "logging": "logging, set up only when something is logged",
    "elydora_cli.runtime.errorlog": "the neutral hook's failure path (its own path loads no runtime package)",
    "elydora_cli.runtime.templates.gapevent": "the neutral hook's failure path (an unreadable request)",
    "elydora_config.errors": "statefiles' agent-id rule: the runtime's processes import its names alone",
    "elydora_config.paths": "statefiles' agent-id rule, as above",
    "os": "statefiles' path join: the flusher's boot reads statefiles' names before os is loaded",
    "importlib": "the runtime package's public names, loaded when first asked for (the flusher's boot needs none)",
    # processes: only when an agent or an interpreter is asked
    "subprocess": "a process is started only when an agent or an interpreter is asked",
    "tempfile": "a scratch home, only when Codex hashes our entries",
    "elydora_cli.introspect.appserver": "codex app-server, only when Codex is on PATH",
    # rare paths
    "difflib": "a dry run's diff or a did-you-mean",
    "hashlib": "a key id, only when an identity is made",
    "datetime": "TOML date and time values only",
    "importlib.util": "an installed distribution's files, on a rare path",
    "site": "the flusher's start without the hook's sys.path",
    "shutil": "a path search, on a rare path",
    # one platform's or one Python's
    "pwd": "the users of system scope, POSIX only (absent on Windows)",
    "signal": "killing a child's process group, only when an agent's probe timed out",
    "base64": "Codex's macOS preferences only (base64 loads struct)",
    "plistlib": "macOS managed preferences and the launchd agent (it loads datetime and expat)",
    "elydora_config._platform.locking": "the state and spool locks (fcntl), not on read-only commands",
    "elydora_cli.spoollock": "the spool's append lock (fcntl), only when a status change is recorded",
    "ctypes": "the POSIX layer's calls that the os module lacks",
    "fcntl": "POSIX locking (absent on Windows)",
    "elydora_cli.runtime.spool": "the spool's POSIX locking (fcntl)",
    "tomllib": "Python 3.11 and later",
    "tomli": "Python 3.10",
}
"""The modules imported inside functions (on first use), each with the reason; every other import is at the
top of its module."""
MAX_LOCAL_IMPORTS = 80


def _local_imports(package: Path) -> list[tuple[str, str]]:
    """(``file:line``, absolute module or ``module.name``) of every import inside a function of ``package``."""
    found = []
    for path in sorted(package.rglob("*.py")):
        if "templates" in path.parts:  # the standalone runtime scripts: their own rules (docs/runtime.md)
            continue
        parts = path.relative_to(package.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                where = f"{path.relative_to(package.parent)}:{getattr(node, 'lineno', 0)}"
                if isinstance(node, ast.Import):
                    found += [(where, alias.name) for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    base = node.module or ""
                    if node.level:
                        anchor = module.split(".") if parts[-1] == "__init__" else module.split(".")[:-1]
                        anchor = anchor[: len(anchor) - node.level + 1]  # the package the dots name
                        base = ".".join([*anchor, *([node.module] if node.module else [])])
                    found += [(where, f"{base}.{alias.name}") for alias in node.names]
    return found


def test_imports_inside_functions_are_the_named_lazy_ones() -> None:
    """Imports are at the top of their module, but for the modules of :data:`LAZY`; at most 80 in all."""
    root = Path(__file__).resolve().parents[3]
    found = [*_local_imports(root / "elydora_config"), *_local_imports(root / "elydora_cli")]
    strays = [
        f"{where} {name}"
        for where, name in found
        if not any(name == lazy or name.startswith(lazy + ".") for lazy in LAZY)
    ]
    assert strays == []
    assert len(found) <= MAX_LOCAL_IMPORTS
