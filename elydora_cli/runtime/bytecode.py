"""The bytecode of the generated runtime modules, compiled by ``install`` for the hook interpreter.

The launchers (``templates/launcher.py``) load ``_elydora_guard`` and ``_elydora_audit`` (and, under system
scope, ``_elydora_policy``) by path: from ``<module>.<cache tag>.code`` beside the source when it exists for the
interpreter running them, else from the source. ``install`` writes those files in its transaction and records
each one's :func:`digest` (size and CRC-32) in the install manifest; ``status`` compares them (a file that
differs could run other code than the runtime). The interpreter's own ``__pycache__`` is never read: a compiled
file planted there runs nothing, and ``status`` reports it.

Why a CRC and not SHA-256: ``status`` does not load :mod:`hashlib` (its start-up is benchmarked, and it hashes
nothing else), and a cryptographic digest would buy nothing here. Under user scope the manifest is as writable
as the bytecode, so whoever can forge one can rewrite the other: the check catches a stray, stale or replaced
file, as every other check of the user's own directory does. Under system scope both are root's.

The code is compiled by the hook interpreter itself (in this process when it is this interpreter, else by
running it once): bytecode is specific to an interpreter version, and the cache tag in the file name keeps a
launcher run by another version on the source.
"""

from __future__ import annotations

import binascii
import marshal
import os
import sys

from ..statefiles import AUDIT_MODULE, GUARD_MODULE, POLICY_MODULE

CODE_SUFFIX = ".code"
MODULES = (GUARD_MODULE, AUDIT_MODULE, POLICY_MODULE)
"""The runtime modules the launchers load (``_elydora_policy`` under system scope only)."""
COMPILE_TIMEOUT = 60.0
_COMPILER = (
    "import marshal, sys\n"
    "sources = marshal.loads(sys.stdin.buffer.read())\n"
    "code = {p: marshal.dumps(compile(s, p, 'exec', dont_inherit=True, optimize=0)) for p, s in sources.items()}\n"
    "sys.stdout.buffer.write(marshal.dumps((sys.implementation.cache_tag, code)))\n"
)
"""Run by the hook interpreter: ``{path: source}`` on stdin, ``(cache tag, {path: marshalled code})`` out (the
marshal format of plain strings, bytes and dictionaries is read by every Python 3)."""


def code_name(module: str, cache_tag: str) -> str:
    """The file name of ``module``'s bytecode for interpreters of ``cache_tag`` (``cpython-312``)."""
    return f"{module}.{cache_tag}{CODE_SUFFIX}"


def compiled(python: str, runtime_dir: str, sources: dict[str, bytes]) -> dict[str, bytes]:
    """``{file name: bytecode}`` of each runtime module in ``sources`` (``{module file name: source}``), compiled
    by ``python`` as the launchers in ``runtime_dir`` will load it; empty when it cannot compile them (the
    launchers then compile the source on every call)."""
    modules = {os.path.join(runtime_dir, name): data for name, data in sources.items() if _module(name) in MODULES}
    if not modules:
        return {}
    if os.path.realpath(python) == os.path.realpath(sys.executable):
        tag, code = sys.implementation.cache_tag, {p: _compile(p, s) for p, s in modules.items()}
    else:
        found = _compile_with(python, modules)
        if found is None:
            return {}
        tag, code = found
    if not isinstance(tag, str) or not tag:
        return {}
    return {code_name(_module(os.path.basename(p)), tag): code[p] for p in modules}


def _module(file_name: str) -> str:
    return file_name[: -len(".py")] if file_name.endswith(".py") else ""


def _compile(path: str, source: bytes) -> bytes:
    return marshal.dumps(compile(source, path, "exec", dont_inherit=True, optimize=0))


def _compile_with(python: str, modules: dict[str, bytes]) -> tuple[str, dict[str, bytes]] | None:
    import subprocess  # only when another interpreter compiles: status loads this module and spawns nothing

    try:
        done = subprocess.run(
            [python, "-I", "-S", "-c", _COMPILER],
            input=marshal.dumps(modules),
            capture_output=True,
            timeout=COMPILE_TIMEOUT,
        )
        tag, code = marshal.loads(done.stdout) if done.returncode == 0 else (None, None)
    except (OSError, subprocess.TimeoutExpired, ValueError, EOFError, TypeError):
        return None
    if not isinstance(code, dict) or set(code) != set(modules) or not all(isinstance(v, bytes) for v in code.values()):
        return None
    return str(tag), code


def same_code(old: bytes, new: bytes) -> bool:
    """Whether two compiled files hold equal code. ``marshal`` marks an object it may share by its reference
    count in the compiling process, so compiling the same source twice can give other bytes; an install that
    finds equal code keeps the bytes there (install twice changes nothing). Another interpreter's file that
    this one cannot read counts as different."""
    if old == new:
        return True
    try:
        return bool(marshal.loads(old) == marshal.loads(new))
    except (ValueError, EOFError, TypeError):
        return False


def digest(data: bytes) -> str:
    """What the install manifest records of a bytecode file: ``<size>:<CRC-32 in hex>``."""
    return f"{len(data)}:{binascii.crc32(data):08x}"
