"""``elydora help [COMMAND...]`` shows a command's page; ``elydora completion SHELL`` completes commands, verbs,
options and provider ids in bash, zsh and fish (each shell run for real when it is installed)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from elydora_cli.main import main


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own exits (--help)
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("words", [[], ["install"], ["agent", "freeze"], ["audit", "tail"]])
def test_help_shows_the_page_of_the_command_it_names(capsys: pytest.CaptureFixture[str], words: list[str]) -> None:
    code, out, err = cli(capsys, "help", *words)
    assert (code, err) == (0, "")
    assert (code, out) == cli(capsys, *words, "--help")[:2]
    assert out.startswith(f"usage: elydora {' '.join(words)}".rstrip())


def test_help_of_an_unknown_command_is_one_error_line_with_a_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    refusal = "Error: elydora: unknown command 'instal' (did you mean 'install'?)\n"
    assert cli(capsys, "help", "instal") == (2, "", refusal)
    code, out, err = cli(capsys, "help", "agent", "frez")
    assert (code, out, err) == (2, "", "Error: elydora agent: unknown command 'frez' (did you mean 'freeze'?)\n")
    assert cli(capsys, "help", "status", "x") == (2, "", "Error: 'elydora status' has no sub-command 'x'\n")


CASES = [
    ("elydora ag", {"agent"}),
    ("elydora agent f", {"freeze"}),
    ("elydora --root /tmp agent fr", {"freeze"}),
    ("elydora agent freeze --pro", {"--provider"}),
    ("elydora agent freeze --provider clau", {"claude", "claudecode", "claude-code"}),
    ("elydora install gem", {"gemini"}),
    ("elydora audit flush --acc", {"--accept-ledger"}),
    ("elydora completion ", {"bash", "zsh", "fish"}),
]


def script(capsys: pytest.CaptureFixture[str], shell: str) -> str:
    code, out, err = cli(capsys, "completion", shell)
    assert (code, err) == (0, "") and out.startswith(("#compdef", "#"))
    return out


def test_completion_is_refused_for_another_shell(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "completion", "tcsh")
    assert code == 2 and err.splitlines()[-1].startswith("Error: argument SHELL: invalid choice: 'tcsh'")


def _completed(shell: str, text: str, program: str) -> set[str]:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    run = subprocess.run([shell, "-c", program, "elydora", text], capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    return set(run.stdout.split())


BASH = 'source /dev/stdin <<< "$SCRIPT"; read -ra COMP_WORDS <<< "$1"; [[ $1 == *" " ]] && COMP_WORDS+=("")\n' \
    'COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _elydora; printf "%s\\n" "${COMPREPLY[@]}"'
ZSH = 'eval "$SCRIPT"; compadd() { [[ $1 == -- ]] && shift; print -l -- "$@"; }; _files() { }\n' \
    'words=(${=1}); [[ $1 == *" " ]] && words+=(""); CURRENT=${#words}\n' \
    'cur=${words[CURRENT]}; _elydora | while read -r w; do [[ $w == $cur* ]] && print -- $w; done; true'
FISH = 'echo $SCRIPT | source; complete -C "$argv[-1]"'


@pytest.mark.parametrize(("shell", "program"), [("bash", BASH), ("zsh", ZSH), ("fish", FISH)])
@pytest.mark.parametrize(("text", "expected"), CASES)
def test_the_completion_script_completes_commands_verbs_options_and_providers(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, shell: str, program: str, text: str,
    expected: set[str],
) -> None:
    monkeypatch.setenv("SCRIPT", script(capsys, shell))
    found = _completed(shell, text, program)
    assert found >= expected and all(w.startswith(text.rsplit(" ", 1)[1]) for w in found), found
