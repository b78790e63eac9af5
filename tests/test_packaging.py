"""The package as PyPA describes one today, and as another tool's author installs it.

The wheel and the sdist themselves (``twine check``, LICENSE in both, the sdist's files and its own test run)
are checked by ``.ci/check-dist``, which builds them; these tests hold what can be seen without a build.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from locations import PROJECT_ROOT
from packaging.licenses import canonicalize_license_expression

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib  # type: ignore[import-not-found, no-redef, unused-ignore]

PROJECT = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
APACHE_2_0_SHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"
"""SHA-256 of the Apache License 2.0 as the Apache Software Foundation publishes it (LICENSE-2.0.txt)."""

CLIENT = '''\
"""Another tool edits a JSONC file all-or-nothing with the library."""

from __future__ import annotations

from elydora_config import JSONC, JsoncDocument, Transaction, recover


def enable(state_dir: str, settings: str) -> bool:
    recover(state_dir)
    with Transaction(state_dir, lock_timeout=10.0) as tx:
        old = tx.read(settings, max_bytes=1 << 20)
        document = JsoncDocument.parse_bytes(old or b"{}", JSONC)
        document.set(["enabled"], True)
        tx.write(settings, document.to_bytes())
    return document.get(["enabled"]) is True
'''


def test_the_license_file_is_the_apache_license_unchanged() -> None:
    assert hashlib.sha256((PROJECT_ROOT / "LICENSE").read_bytes()).hexdigest() == APACHE_2_0_SHA256


def test_the_license_is_an_spdx_expression_with_its_file() -> None:
    project = PROJECT["project"]
    assert canonicalize_license_expression(project["license"]) == project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"]
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]  # PEP 639: the expression alone


def type_check(folder: Path, source: str) -> subprocess.CompletedProcess[str]:
    """``mypy --strict`` on ``source`` as a client's own file, run from its own folder (not this repository)."""
    (folder / "client.py").write_text(source, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "client.py"], cwd=folder,
                          capture_output=True, text=True, timeout=300)


def test_a_client_type_checks_against_the_installed_library(tmp_path: Path) -> None:
    # The README installs with `pip install -e`; an editable install made by an import hook would be invisible to
    # mypy ("Cannot find implementation or library stub for module named elydora_config").
    done = type_check(tmp_path, CLIENT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_client_check_sees_the_library_types(tmp_path: Path) -> None:
    done = type_check(tmp_path, CLIENT.replace("max_bytes=1 << 20", 'max_bytes="1 MiB"'))
    assert done.returncode == 1
    assert 'Argument "max_bytes" to "read" of "Transaction" has incompatible type "str"; expected "int"' in done.stdout
