"""The wheel and the sdist as a user gets them; run by .ci/run from the root of its clone, in its environment.

Builds both (``python -m build``) into a temporary directory and fails when the build warns of a deprecation,
``twine check --strict`` does not pass, LICENSE is missing from either, or a file git tracks is missing from the
sdist (all but .ci/ and the root's .gitignore). Then it unpacks the sdist into another temporary directory,
installs it there as the README says (``pip install -e ".[test]"``, in a fresh virtual environment) and runs the
tests given as arguments (by default a selection that reads every folder the sdist carries besides the code).

    python .ci/check_dist.py                      # the selection
    python .ci/check_dist.py -n auto              # the whole suite from the unpacked sdist
"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import tempfile
import venv
import zipfile
from pathlib import Path

SELECTION = [
    "tests/test_readme.py",  # README.md, the tour
    "tests/test_docs.py",  # docs/ and its links
    "tests/test_packaging.py",  # LICENSE, pyproject.toml, mypy on a client after `pip install -e`
    "tests/test_no_path_inserts.py",
    "tests/ansible",  # ansible/
    "tests/elydora_config/jsonc/test_jsonc_conformance.py",  # tests/corpus/
    "tests/elydora_config/toml/test_toml_conformance.py",
    "tests/elydora_config/jsonc/test_jsonc_reference_configs.py",  # fixtures/configs/
    "tests/elydora_cli/neutral",  # fixtures/neutral-v1/
    "tests/elydora_cli/providers/test_provider_acceptance.py",  # fixtures/payloads/
    "-n", "auto",
]
NOT_SHIPPED = (".ci/", ".gitignore")


def run(argv: list[str], cwd: Path | None = None) -> str:
    print("check-dist:", " ".join(argv), flush=True)
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"check-dist: {argv[0]} exited {done.returncode}\n{done.stdout}{done.stderr}")
    return done.stdout + done.stderr


def check_build(dist: Path) -> tuple[Path, Path]:
    log = run([sys.executable, "-m", "build", "--outdir", str(dist), "."])
    warned = [line for line in log.splitlines() if re.search(r"deprecat", line, re.I)]
    if warned:
        sys.exit("check-dist: the build warns of a deprecation:\n" + "\n".join(warned))
    (wheel,), (sdist,) = dist.glob("*.whl"), dist.glob("*.tar.gz")
    run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)])
    return wheel, sdist


def check_contents(wheel: Path, sdist: Path) -> str:
    """The sdist's top folder; exits when LICENSE or a tracked file is missing."""
    with zipfile.ZipFile(wheel) as archive:
        if not any(re.fullmatch(r"[^/]+\.dist-info/licenses/LICENSE", name) for name in archive.namelist()):
            sys.exit(f"check-dist: {wheel.name} has no LICENSE")
    with tarfile.open(sdist) as archive:
        members = archive.getnames()
    top = members[0].split("/")[0]
    shipped = {name.split("/", 1)[1] for name in members if "/" in name}
    tracked = run(["git", "ls-files", "-z"]).split("\0")
    missing = sorted(name for name in tracked if name and not name.startswith(NOT_SHIPPED) and name not in shipped)
    if missing:
        sys.exit(f"check-dist: {sdist.name} lacks {len(missing)} tracked files: {missing[:20]}")
    print(f"check-dist: {wheel.name} and {sdist.name} pass twine check and hold LICENSE; the sdist holds "
          f"every tracked file ({len(tracked) - 1})", flush=True)
    return top


def test_unpacked(sdist: Path, top: str, work: Path, pytest_args: list[str]) -> None:
    safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # 3.11.4 and 3.10.12 on
    with tarfile.open(sdist) as archive:
        archive.extractall(work, **safe)  # type: ignore[arg-type]
    root = work / top
    venv.create(root / ".venv", with_pip=True)
    python = str(root / ".venv" / "bin" / "python")
    run([python, "-m", "pip", "install", "-q", "-e", ".[test]"], cwd=root)
    print(run([python, "-m", "pytest", "-q", *pytest_args], cwd=root)[-2000:], flush=True)


def main() -> None:
    pytest_args = sys.argv[1:] or SELECTION
    with tempfile.TemporaryDirectory(prefix="elydora-dist-") as temp:
        wheel, sdist = check_build(Path(temp) / "dist")
        top = check_contents(wheel, sdist)
        test_unpacked(sdist, top, Path(temp) / "unpacked", pytest_args)


if __name__ == "__main__":
    main()
