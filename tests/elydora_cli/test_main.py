"""The CLI conventions of :mod:`elydora_cli.main`: global flags anywhere, usage errors (exit 2) with
suggestions, aliases, version, quiet, help with examples and provider ids, a closed pipe, ``HOME``."""

from __future__ import annotations

import json
import os
import re
import site
import subprocess
import sys
from pathlib import Path

import pytest
from elydora_testkit.platforms import NO_LONG_NAME_ERROR, NO_SPECIAL_FILES, NO_UNDECODABLE_NAMES, posix_only

from elydora_cli import __version__, catalog, exitcodes
from elydora_cli.commands import Parser
from elydora_cli.commands.options import HOME_VARIABLE
from elydora_cli.main import COMMANDS, build_parser, main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own exits (help, version, parse errors)
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "CODEX_HOME", "ELYDORA_VERIFY_PROBE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


@pytest.mark.parametrize(
    "argv",
    [
        ["--json", "--root", "{home}", "status", "claudecode"],
        ["status", "claudecode", "--json", "--root", "{home}"],
        ["--root", "{home}", "status", "--json", "claudecode"],
        ["-v", "--log-json", "status", "claudecode", "--root", "{home}", "--json"],
        ["status", "-vv", "--json", "claudecode", "--root", "{home}"],
    ],
)
def test_global_flags_before_or_after_the_command(
    home: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert run(capsys, "install", "claudecode", "--root", str(home))[0] == 0
    code, out, _ = run(capsys, *[a.replace("{home}", str(home)) for a in argv])
    assert code == 0
    assert json.loads(out)["providers"][0]["state"] == "healthy"


def test_verbosity_and_root_before_the_command_reach_it(home: Path) -> None:
    args = build_parser(["-vv", "--root", str(home), "agent", "show", "--provider", "claude"]).parse_args(
        ["-vv", "--root", str(home), "agent", "show", "--provider", "claude"]
    )
    assert (args.verbose, args.root, args.command) == (2, str(home), "agent")
    args = build_parser(["agent", "show", "-v", "--root", "x"]).parse_args(["agent", "show", "-v", "--root", "x"])
    assert (args.verbose + args.verbose_after, args.root) == (1, "x")


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    for flag in ("-V", "--version"):
        code, out, _ = run(capsys, flag)
        assert (code, out) == (0, f"elydora {__version__}\n")


def test_version_loads_no_command_module() -> None:
    """``elydora --version`` answers without importing the command modules (it used to load all of them, as for
    ``--help``: half a second of a cold start)."""
    script = (
        "import sys\nfrom elydora_cli.main import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('elydora_cli.commands.')))"
    )
    found = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert found.stdout.splitlines()[-1] == "[]"
    assert build_parser(["--help", "--version"]).format_help().count("install") >= 1  # --help still lists them


@pytest.mark.parametrize(
    ("argv", "wanted"),
    [
        (["instal", "claudecode"], "did you mean 'install'?"),
        (["stauts"], "did you mean 'status'?"),
        (["install", "claudcode"], "did you mean 'claudecode'?"),
        (["status", "gemni"], "did you mean 'gemini'?"),
        (["agent", "show", "--provider", "cursr"], "did you mean 'cursor'?"),
        (["agent", "frezee", "--provider", "codex"], "did you mean 'freeze'?"),
        (["hooks", "sample", "claude", "PreTool"], "did you mean 'PreToolUse'?"),
    ],
)
def test_misspellings_are_usage_errors_with_a_suggestion(
    home: Path, capsys: pytest.CaptureFixture[str], argv: list[str], wanted: str
) -> None:
    code, out, err = run(capsys, *argv, "--root", str(home))
    assert code == exitcodes.USAGE and out == ""
    assert wanted in err and err.splitlines()[-1].startswith("Error: ")
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["install", "nosuch"],
        ["status", "vim"],
        ["verify", "nosuch"],
        ["agent", "show", "--provider", "vim"],
        ["audit", "tail", "--provider", "vim"],
        ["install", "claudecode", "--agent-id", "../x"],
        ["status", "claudecode", "--agent-id", ".hidden"],
        ["agent", "freeze", "--agent-id", "a/b"],
        ["audit", "verify", "--agent-id", " lead"],
    ],
)
def test_unknown_providers_and_invalid_agent_ids_exit_2(
    home: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    code, out, err = run(capsys, *argv, "--root", str(home))
    assert code == 2 and out == "" and err.startswith("Error: ") and err.count("\n") == 1, err
    assert not (home / ".elydora").exists()


@pytest.mark.parametrize(
    ("alias", "pid"), [("claude", "claudecode"), ("claude-code", "claudecode"), ("auggie", "augment"),
                       ("factory", "droid"), ("Claude", "claudecode"), ("cursor-agent", "cursor")]
)
def test_aliases_name_the_provider(home: Path, capsys: pytest.CaptureFixture[str], alias: str, pid: str) -> None:
    code, out, _ = run(capsys, "install", alias, "--root", str(home), "--json")
    assert code == 0 and [r["provider"] for r in json.loads(out)["results"]] == [pid]
    assert (home / ".elydora" / pid / "install-manifest.json").is_file()
    code, out, _ = run(capsys, "agent", "show", "--provider", alias, "--root", str(home), "--json")
    assert code == 0 and json.loads(out)["agent_id"] == pid


def test_the_alias_table_lives_in_the_catalog() -> None:
    names = [n for p in catalog.providers() for n in (p.id, *p.aliases)]
    assert len(names) == len(set(names))  # no alias stands for two agents
    assert {catalog.canonical_id(a) for a in ("claude", "claude-code", "auggie", "factory")} == {
        "claudecode", "augment", "droid"
    }


def test_help_lists_provider_ids_and_every_command_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for provider in catalog.providers():
        assert f"  {provider.id} " in out
    assert "claude-code" in out and "examples:" in out
    pages = _help_pages(build_parser([]), [])
    assert len(pages) >= 21 and {" ".join(p) for p in pages} >= {*COMMANDS, "audit tail", "agent freeze"}
    for page in pages:
        code, out, _ = run(capsys, *page, "--help")
        examples = out.split("\nexamples:\n")
        assert code == 0 and len(examples) == 2, page
        assert f"elydora {' '.join(page)}" in examples[1] and "\n\n" not in examples[1].strip(), page
    code, out, _ = run(capsys, "install", "--help")
    assert all(p.id in out for p in catalog.providers())


def _help_pages(parser: Parser, path: list[str]) -> list[list[str]]:
    """Every command and verb (``["agent", "freeze"]``...) that has a help page of its own."""
    pages = [path] if path else []
    for name, sub in parser.subcommands().items():
        pages += _help_pages(sub, [*path, name])
    return pages


def _parsers(parser: Parser) -> list[Parser]:
    return [parser, *(p for sub in parser.subcommands().values() for p in _parsers(sub))]


def test_a_parser_lists_the_arguments_of_its_groups_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    parser = Parser(prog="tool")
    parser.add_argument("--plain")
    parser.add_group("extra options").add_argument("--titled", action="store_true")
    either = parser.add_exclusive_group()
    either.add_argument("--this", action="store_true")
    either.add_argument("--that", action="store_true")
    verbs = parser.add_subparsers(dest="verb")
    run_verb = verbs.add_parser("run")
    assert [a.dest for a in parser.actions] == ["help", "plain", "titled", "this", "that", "verb"]
    assert parser.subcommands() == {"run": run_verb} and type(run_verb) is Parser and run_verb.subcommands() == {}
    assert "\nextra options:\n  --titled\n" in parser.format_help()  # the groups are argparse's own
    with pytest.raises(SystemExit):
        parser.parse_args(["--this", "--that"])
    assert "argument --that: not allowed with argument --this" in capsys.readouterr().err


def test_every_option_of_every_command_is_in_its_parsers_list() -> None:
    """What completion and `elydora help` read: an argument added through argparse's own groups
    (``add_argument_group``, ``add_mutually_exclusive_group``) would show in the usage but be missing here."""
    parsers = _parsers(build_parser([]))
    assert len(parsers) >= 22
    for parser in parsers:
        shown = set(re.findall(r"[\[ |](--?[A-Za-z][\w-]*)", parser.format_usage()))
        listed = {option for action in parser.actions for option in action.option_strings}
        assert {"-h", "-v", "--json", "--root"} <= shown <= listed, parser.prog


def test_quiet_prints_errors_only(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "-q", "install", "claudecode", "--root", str(home)) == (0, "", "")
    assert run(capsys, "status", "--root", str(home), "--quiet") == (0, "healthy: claudecode\n", "")
    assert run(capsys, "status", "gemini", "--root", str(home), "--quiet") == (0, "no agent is installed here\n", "")
    (home / ".claude" / "settings.json").write_text("{}")
    assert run(capsys, "status", "--root", str(home), "--quiet") == (1, "not healthy: claudecode (unhealthy)\n", "")
    code, out, err = run(capsys, "--quiet", "install", "nosuch", "--root", str(home))
    assert (code, out) == (2, "") and err.startswith("Error: unknown provider 'nosuch'")


def test_a_closed_pipe_ends_quietly(home: Path) -> None:
    elydora = [sys.executable, "-m", "elydora_cli"]
    process = subprocess.Popen(
        [*elydora, "install", "--every", "--dry-run", "--root", str(home)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.read(100)
    process.stdout.close()  # what `| head -c 100` does
    err = process.stderr.read()
    assert process.wait(timeout=60) == exitcodes.PIPE_CLOSED
    assert err == b""


@posix_only("a closed descriptor given to a child, as a POSIX shell's `>&-` does")
def test_a_closed_standard_stream_is_the_null_device(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Python leaves ``sys.stdout`` None when descriptor 1 is closed: the command runs all the same, and its exit
    code says how it went."""
    elydora = [sys.executable, "-m", "elydora_cli"]
    for closed, argv in ((">&-", ["install", "claudecode"]), (">&- 2>&- <&-", ["status", "-v"])):
        shell = ["sh", "-c", f'exec "$@" {closed}', "sh", *elydora, *argv, "--root", str(home)]
        done = subprocess.run(shell, capture_output=True, text=True, timeout=60)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), argv
    assert run(capsys, "status", "claudecode", "--root", str(home))[:2] == (0, "claudecode   healthy\n")


def test_output_its_encoding_cannot_hold_is_escaped_not_an_error(tmp_path: Path) -> None:
    """Under ``PYTHONIOENCODING=ascii`` (or a locale without UTF-8), the install of a home named with an ``é``
    used to end in ``Error: UnicodeEncodeError`` (exit 1) after it had installed."""
    home = tmp_path / "Zoé"
    home.mkdir()
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    done = subprocess.run([sys.executable, "-m", "elydora_cli", "install", "claudecode", "--root", str(home)],
                          capture_output=True, text=True, encoding="ascii", env=env, timeout=60)  # fmt: skip
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert f"changed: {tmp_path}{os.sep}Zo\\xe9{os.sep}.claude{os.sep}settings.json" in done.stdout


@posix_only("Windows does not remove a directory that is a process's current directory")
def test_a_removed_current_directory_is_a_usage_error(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    for argv in (["install", "claudecode"], ["status"], ["uninstall", "--all"]):
        code, out, err = run(capsys, *argv, "--root", str(home))
        assert (code, out) == (2, ""), argv
        assert err.startswith("Error: the current directory no longer exists (it was removed or renamed): cd ")
    assert os.listdir(home) == []
    assert run(capsys, "install", "claudecode", "--root", str(home), "--repo-root", str(tmp_path))[0] == 0


@pytest.mark.parametrize("value", [None, "", "  "])
def test_an_empty_or_unset_home_without_root_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, value: str | None
) -> None:
    monkeypatch.chdir(tmp_path)
    if value is None:
        monkeypatch.delenv(HOME_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(HOME_VARIABLE, value)
    for argv in (["install", "claudecode"], ["status"], ["agent", "show", "--provider", "codex"]):
        code, out, err = run(capsys, *argv)
        assert (code, out) == (2, ""), argv
        assert err == (
            f"Error: {HOME_VARIABLE} is empty or unset: give --root DIR (the home whose agent configs to use)\n"
        )
    assert os.listdir(tmp_path) == []
    (tmp_path / "h").mkdir()
    code, _, _ = run(capsys, "install", "claudecode", "--root", str(tmp_path / "h"))
    assert code == 0


def test_verbose_before_and_after_the_command_add_up(capsys: pytest.CaptureFixture[str], home: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from elydora_config import log

    seen: list[int] = []
    monkeypatch.setattr(log, "set_options", lambda *, verbose, json: seen.append(verbose))
    run(capsys, "-v", "status", "claudecode", "-v", "--root", str(home))
    run(capsys, "status", "claudecode", "-vv", "--root", str(home))
    run(capsys, "status", "claudecode", "--root", str(home))
    assert seen == [2, 2, 0]


ENTRY = """
import atexit, os, sys
sys.path[:0] = sys.argv.pop(1).split(os.pathsep)
class Marker:
    def __del__(self):
        sys.__stderr__.write("finalized\\n")
marker = Marker()
if sys.argv[1] == "--with-exit-handler":
    sys.argv.pop(1)
    atexit.register(lambda: sys.__stderr__.write("exit handler\\n"))
sys.argv[0] = "elydora"
from elydora_cli.main import entry
entry()
"""


PATH = [str(Path(__file__).resolve().parents[2]), *site.getsitepackages(), site.getusersitepackages()]
ISOLATED = [sys.executable, "-I", "-S", "-c", ENTRY, os.pathsep.join(PATH)]
"""The console script in an interpreter that registered nothing at start-up: the project and the directories of
its dependencies as plain path entries (a site-packages ``.pth`` file may register an exit handler, and then
every command rightly exits normally)."""


def _entry(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ISOLATED, *argv], capture_output=True, text=True, timeout=60)


def test_the_console_script_exits_normally_after_a_status(home: Path) -> None:
    """The process is torn down as any other: exit handlers run and objects are finalized."""
    installed = _entry("install", "claudecode", "--root", str(home))  # the same interpreter renders the hooks
    assert installed.returncode == 0 and "finalized" in installed.stderr
    handled = _entry("--with-exit-handler", "status", "--json", "--root", str(home))
    assert handled.returncode == 0 and json.loads(handled.stdout)["ok"] is True
    assert "exit handler" in handled.stderr and "finalized" in handled.stderr


def test_the_console_script_ends_quietly_on_a_closed_pipe_after_a_status(home: Path) -> None:
    assert _entry("install", "--every", "--root", str(home)).returncode == 0
    process = subprocess.Popen(
        [*ISOLATED, "status", "--json", "--root", str(home)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # before the status has written anything: its first write meets a closed pipe
    err = process.stderr.read()
    assert process.wait(timeout=60) == exitcodes.PIPE_CLOSED
    assert err.splitlines() == [b"finalized"]  # the harness's marker alone: no error, no traceback


def test_all_and_every_together_are_a_usage_error(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("install", "verify"):
        code, out, err = run(capsys, command, "--all", "--every", "--root", str(home))
        assert (code, out) == (2, "") and "Error: argument --every: not allowed with argument --all" in err
    assert os.listdir(home) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["status", "--json"],
        ["install", "claudecode"],
        ["uninstall", "--all"],
        ["verify", "--all"],
        ["agent", "create", "claude"],
        ["audit", "tail", "claude"],
        ["recover"],
    ],
)
def test_a_missing_root_is_refused_never_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *argv, "--root", "typo")
    missing = tmp_path / "typo"
    assert code == 2 and err.endswith(
        f"Error: {missing}: no such directory (--root names the home directory whose agent configs to use)\n"
    )
    assert os.listdir(tmp_path) == []
    if "--json" in argv:
        assert json.loads(out)["ok"] is False
    (tmp_path / "file").write_text("")
    code, _, err = run(capsys, *argv, "--root", "file")
    assert code == 2 and f"Error: {tmp_path / 'file'}: is not a directory" in err


@pytest.mark.parametrize("flag", ["--root", "--state-root"])
def test_an_empty_root_or_state_root_is_refused_never_taken_for_the_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, flag: str
) -> None:
    """``--root "$UNSET"`` must not install into the real home (``$HOME``) the flag was meant to keep out of."""
    real = tmp_path / "real-home"
    (real / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(real))
    monkeypatch.chdir(tmp_path)
    for argv in (["install", "claudecode"], ["status"], ["uninstall", "--all"]):
        code, out, err = run(capsys, *argv, flag, "")
        assert (code, out) == (2, ""), argv
        assert err == f"Error: {flag} is empty: name a directory (leave the flag out for the default)\n"
    assert sorted(os.listdir(real)) == [".claude"] and os.listdir(real / ".claude") == []


@posix_only(NO_UNDECODABLE_NAMES)
@pytest.mark.parametrize("where", ["--root", "--state-root", "HOME"])
def test_a_home_or_state_root_that_is_not_utf8_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """The agents read paths as UTF-8: no hook command can name such a folder. One line shows its bytes."""
    odd = os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9")
    os.mkdir(odd)
    os.mkdir(os.path.join(odd, ".claude"))
    (tmp_path / "h").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", odd if where == "HOME" else str(tmp_path / "h"))
    flags = [] if where == "HOME" else [where, odd]
    label = "$HOME" if where == "HOME" else where
    for argv in (["install", "claudecode"], ["status", "--json"], ["agent", "freeze", "--provider", "claude"]):
        code, _, err = run(capsys, *argv, *flags)
        assert code == 2 and "Traceback" not in err, argv
        assert err.splitlines()[-1] == (
            f"Error: {tmp_path}/caf\\xe9: is not valid UTF-8: the agents read paths as UTF-8 text and would neither "
            f"find their settings nor run a hook under it (rename it, or choose a path that is UTF-8) ({label})"
        )
    assert os.listdir(odd) == [".claude"] and os.listdir(os.path.join(odd, ".claude")) == []
    assert os.listdir(tmp_path / "h") == []


@pytest.mark.parametrize("special", ["file", pytest.param("fifo", marks=posix_only(NO_SPECIAL_FILES))])
def test_a_state_root_that_is_not_a_directory_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, special: str
) -> None:
    """Not reported as "an interrupted transaction is pending" (exit 4): the flag names the wrong thing."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "h").mkdir()
    target = tmp_path / special
    if special == "fifo":
        os.mkfifo(target)
    else:
        target.write_text("")
    for argv in (["status"], ["install", "claudecode"], ["recover"]):
        code, out, err = run(capsys, *argv, "--root", str(tmp_path / "h"), "--state-root", str(target))
        assert (code, out) == (2, ""), argv
        assert err == f"Error: {target}: is not a directory (--state-root names where .elydora/ lives)\n"
    assert os.listdir(tmp_path / "h") == []


@posix_only(NO_LONG_NAME_ERROR)
def test_a_root_whose_name_is_too_long_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not "no such directory": the system's own reason, for either flag."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "h").mkdir()
    long = tmp_path / ("x" * 300)
    for flags in (["--root", str(long)], ["--root", str(tmp_path / "h"), "--state-root", str(long)]):
        code, out, err = run(capsys, "status", *flags)
        assert (code, out) == (2, "")
        assert err == f"Error: {long}: File name too long ({flags[-2]})\n"
    assert os.listdir(tmp_path / "h") == []


def test_a_relative_home_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``HOME=relhome``: installed below this folder, the agent started anywhere else would not find it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "relhome" / ".claude").mkdir(parents=True)
    monkeypatch.setenv(HOME_VARIABLE, "relhome")
    code, out, err = run(capsys, "install", "claudecode")
    assert (code, out) == (2, "")
    assert err == (f"Error: {HOME_VARIABLE}=relhome is not an absolute path: each agent would resolve it from its "
                   "own working directory; set it to an absolute path, or give --root DIR\n")
    assert os.listdir(tmp_path / "relhome" / ".claude") == [] and not (tmp_path / "relhome" / ".elydora").exists()
