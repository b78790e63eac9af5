"""The interpreter the installed hooks run: chosen with ``install --python PATH``, checked, and warned about.

Every hook entry and the generated scripts name this interpreter by its absolute path, so it must outlive
the install: an interpreter inside a virtual environment or a temporary directory disappears with it, and
every hook then fails (exit 127; fail-closed agents block every tool call). Install warns about both.

The hooks themselves need only the standard library; the flusher and the status refresher they start need this
package, and run with the interpreter that runs the install (``runtime.generate.package_python``), so a
system interpreter without the package is fine for the hooks. Under ``--scope system`` every user runs them
with the hooks' interpreter, which must therefore import the flusher: install runs it to check
(:func:`require_flusher`) and refuses one that cannot.
"""

from __future__ import annotations

import os
import subprocess
import tempfile

from .exitcodes import UsageError
from .pathtext import NOT_UTF8, undecodable

TEMP_DIRS = ("/tmp", "/var/tmp", "/dev/shm")
CHECK_TIMEOUT = 10.0


def choose(path: str) -> str:
    """``--python PATH`` made absolute and checked: an executable file that runs ``-I -S -c pass``."""
    chosen = os.path.abspath(os.path.expanduser(path))
    if undecodable(chosen):
        raise UsageError(f"--python {chosen}: {NOT_UTF8}")
    if not os.path.isfile(chosen):
        raise UsageError(f"--python {chosen}: no such file")
    if not os.access(chosen, os.X_OK):
        raise UsageError(f"--python {chosen}: is not executable")
    try:
        result = subprocess.run([chosen, "-I", "-S", "-c", "pass"], capture_output=True, timeout=CHECK_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UsageError(f"--python {chosen}: cannot run it: {exc}") from None
    if result.returncode != 0:
        raise UsageError(f"--python {chosen}: `-I -S -c pass` exited {result.returncode}")
    return chosen


FLUSHER_CHECK = "import elydora_cli.runtime.flush, elydora_cli.runtime.flusher"


def require_flusher(python: str) -> None:
    """Refuse ``python`` when it cannot import the flusher (tried by running it): records would never be signed."""
    try:
        result = subprocess.run([python, "-I", "-c", FLUSHER_CHECK], capture_output=True, timeout=CHECK_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UsageError(f"--python {python}: cannot run it: {exc}") from None
    if result.returncode != 0:
        said = result.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit {result.returncode}"]
        raise UsageError(
            f"--python {python}: cannot run the flusher ({said[0]}); under --scope system the hooks' interpreter"
            " signs the records: install elydora-config for it, or omit --python"
        )


def warnings(python: str) -> list[str]:
    """Why ``python`` may not outlive the install (empty: it looks stable)."""
    found = []
    venv = _venv_of(python)
    if venv is not None:
        found.append(
            f"the hooks will run {python}, inside the virtual environment {venv}; deleting it breaks every hook. "
            "Pass --python with a system interpreter (e.g. --python /usr/bin/python3) to avoid that (the flusher"
            " and the status refresher still run with this installation's interpreter)"
        )
    temps = {os.path.realpath(d) for d in (*TEMP_DIRS, tempfile.gettempdir())}
    real = os.path.realpath(os.path.dirname(python))
    if any(real == t or real.startswith(t + os.sep) for t in temps):
        found.append(f"the hooks will run {python}, in a temporary directory; pass --python with a stable one")
    return found


def _venv_of(python: str) -> str | None:
    """The virtual environment ``python`` belongs to (its ``pyvenv.cfg`` beside or above ``bin/``)."""
    directory = os.path.dirname(python)
    for candidate in (directory, os.path.dirname(directory)):
        if os.path.isfile(os.path.join(candidate, "pyvenv.cfg")):
            return candidate
    return None
