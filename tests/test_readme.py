"""The README holds its promises: the first line, the tour run verbatim, and the exit-code table."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from elydora_cli import exitcodes

README = Path(__file__).resolve().parent.parent / "README.md"


def _text() -> str:
    return README.read_text(encoding="utf-8")


def tour_script() -> str:
    """The first ``sh`` block after the tour's heading, verbatim."""
    text = _text()
    section = text[text.index("## A 60-second tour"):]
    match = re.search(r"```sh\n(.*?)```", section, re.S)
    assert match, "the tour has no sh block"
    return match.group(1)


def test_the_first_line_installs_and_runs_the_demo() -> None:
    first = re.search(r"```sh\n(.*?)\n", _text())
    assert first and first.group(1) == "pip install . && elydora demo"


def test_the_readme_names_nothing_outside_the_repository() -> None:
    # Every path the README gives is inside the repository or the sandbox it creates: no parent-relative
    # and no absolute path into this machine's work folders.
    text = _text()
    assert "../" not in text
    assert not re.search(r"(?<![\w.])/work/", text)


def test_the_exit_code_table_matches_the_code() -> None:
    text = _text()
    table = text[text.index("| exit code | meaning |"):]
    documented = {int(code) for code in re.findall(r"^\| (\d+) \|", table.split("\n\n")[0], re.M)}
    defined = {value for name, value in vars(exitcodes).items() if name.isupper() and isinstance(value, int)}
    assert documented == defined


def run_tour(tmp_path: Path) -> str:
    bindir = os.path.dirname(sys.executable)
    env = {"PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', os.defpath)}", "HOME": str(tmp_path)}
    script = tmp_path / "tour.sh"
    script.write_text(tour_script(), encoding="utf-8")
    work = tmp_path / "fresh"
    work.mkdir()
    done = subprocess.run(
        ["bash", str(script)], cwd=work, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="the tour is a POSIX shell script")
def test_the_tour_run_verbatim_prints_what_it_promises(tmp_path: Path) -> None:
    lines = run_tour(tmp_path).splitlines()
    assert lines.count("guard exit 0") == 1 and lines.count("audit exit 0") == 1
    assert lines.count("guard exit 2") == 1 and lines[-1] == "identical"
    assert lines.index("guard exit 0") < lines.index("audit exit 0") < lines.index("guard exit 2")
    signed = [line for line in lines if re.match(r"#1 \S+ local session=\S+ tool=Bash op=\S+$", line)]
    assert signed, lines  # audit tail shows the entry the audit hook just recorded
    assert "ledger OK: 1 entries" in "\n".join(lines)
