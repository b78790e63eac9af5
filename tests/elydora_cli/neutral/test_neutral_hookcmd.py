"""The hook-command grammar: the spec's examples, the reasons given, and properties over generated text."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from elydora_cli.neutral.hookcommand import HookCommand, HookCommandError, parse_hook_command, quote_word

ACCEPTED = {
    "env NYAR_HOME=/private/nyar NYAR_CODING_ETHOS_ROOT=/opt/coding-ethos /opt/nyar hook": (
        "env",
        "NYAR_HOME=/private/nyar",
        "NYAR_CODING_ETHOS_ROOT=/opt/coding-ethos",
        "/opt/nyar",
        "hook",
    ),
    "/opt/nyar hook": ("/opt/nyar", "hook"),
    "env NYAR_HOME='/tmp/n h' '/opt/my tools/nyar' hook": ("env", "NYAR_HOME=/tmp/n h", "/opt/my tools/nyar", "hook"),
    "/usr/bin/env A=1 /opt/nyar hook --extra-arg": ("/usr/bin/env", "A=1", "/opt/nyar", "hook", "--extra-arg"),
    "/opt/elydora/bin/elydora hook --contract neutral-v1": (
        "/opt/elydora/bin/elydora",
        "hook",
        "--contract",
        "neutral-v1",
    ),
    "  /opt/x  hook \"a b\"\t'c'd\\ e  ": ("/opt/x", "hook", "a b", "cd e"),
    '/opt/x hook $\'\\x41\\102\\u00e9\\\'\' "\\$HOME \\"q\\" \\\\" a\\\\b': (
        "/opt/x",
        "hook",
        "ABé'",
        '$HOME "q" \\',
        "a\\b",
    ),
    "env A= B='' /opt/x hook": ("env", "A=", "B=", "/opt/x", "hook"),
    "'/opt/a;b' hook '|&<>()$`'": ("/opt/a;b", "hook", "|&<>()$`"),
    "/opt/x hook a#b !x a~b": ("/opt/x", "hook", "a#b", "!x", "a~b"),
}

REFUSED = {
    "env NYAR_HOME=/tmp /opt/nyar hook; /bin/true": "more than one command (';')",
    "env NYAR_HOME=$(pwd) /opt/nyar hook": "command substitution ('$(')",
    "env NYAR_HOME=/tmp relative/nyar hook": "a relative executable ('relative/nyar')",
    "NYAR_HOME=/tmp /opt/nyar hook": "a bare assignment (NYAR_HOME=...)",
    "env /opt/nyar hook": "env without a NAME=value assignment",
    "/opt/nyar hook > /tmp/log": "a redirect ('>')",
    "/opt/nyar hook 2>&1": "a redirect ('>')",
    "/opt/nyar hook < /dev/null": "a redirect ('<')",
    "/opt/nyar hook <<EOF": "a redirect ('<')",
    "/opt/nyar hook &>/dev/null": "a redirect ('&>')",
    "/opt/nyar hook &": "a background job ('&')",
    "/opt/nyar hook | tee x": "a pipeline ('|')",
    "/opt/nyar hook |& tee x": "a pipeline ('|&')",
    "/opt/nyar hook && /bin/true": "more than one command ('&&')",
    "/opt/nyar hook || /bin/true": "more than one command ('||')",
    "/opt/nyar hook\n/bin/true": "more than one command (a line break)",
    "$HOME/nyar hook": "parameter expansion ('$')",
    "${HOME}/nyar hook": "parameter expansion ('$')",
    "/opt/nyar hook $((1+2))": "arithmetic expansion ('$((')",
    '/opt/nyar hook $"msg"': "a locale-translated string",
    '/opt/nyar hook "$HOME"': "an expansion inside double quotes ('$')",
    '/opt/nyar hook "`id`"': "command substitution inside double quotes",
    "`which nyar` hook": "command substitution ('`')",
    "/opt/nyar <(echo x) hook": "process substitution ('<(')",
    "/opt/nyar hook >(cat)": "process substitution ('>(')",
    "( /opt/nyar hook )": "a subshell or grouping ('(')",
    "{ /opt/nyar hook; }": "grouping or brace expansion ('{')",
    "/opt/nyar hook {a,b}": "grouping or brace expansion ('{')",
    "f() { /opt/nyar hook; }": "a subshell or grouping ('(')",
    "/opt/nyar hook *.json": "pathname expansion (unquoted '*')",
    "/opt/nyar hook ~/x": "tilde expansion",
    "/opt/nyar hook HOME=~": "tilde expansion",
    "/opt/nyar hook # note": "a comment ('#')",
    "! /opt/nyar hook": "the shell keyword '!'",
    "time /opt/nyar hook": "the shell keyword 'time'",
    "/opt/nyar run": "the sub-command must be `hook`, not 'run'",
    "/opt/nyar": "expected an absolute executable followed by `hook`",
    "/opt/nyar ''": "the sub-command must be `hook`, not ''",
    "nyar hook": "a relative executable ('nyar')",
    "./nyar hook": "a relative executable ('./nyar')",
    "env 1A=x /opt/nyar hook": "an invalid environment variable name ('1A')",
    "env -i A=1 /opt/nyar hook": "an env option ('-i')",
    "env A=1": "no executable after the env assignments",
    "env A=1 bin/coding-ethos-run agent-hook": "a relative executable ('bin/coding-ethos-run')",
    "/opt/coding-ethos/bin/coding-ethos-run agent-hook": "the sub-command must be `hook`",
    "/opt/nyar hook 'unterminated": "unterminated single quote",
    '/opt/nyar hook "unterminated': "unterminated double quote",
    "/opt/nyar hook $'unterminated": "unterminated $'...' string",
    "/opt/nyar hook \\": "a trailing backslash",
    "/opt/nyar hook \x01": "a control character",
    "/opt/nyar hook $'\\n'": "a control character",
}


@pytest.mark.parametrize(("text", "argv"), ACCEPTED.items(), ids=list(ACCEPTED))
def test_accepted(text: str, argv: tuple[str, ...]) -> None:
    command = parse_hook_command(text)
    assert command.argv == argv and command.text == text.strip() and command.subcommand == "hook"
    assert parse_hook_command(command.canonical()).argv == argv


@pytest.mark.parametrize(("text", "reason"), REFUSED.items(), ids=list(REFUSED))
def test_refused_with_reason(text: str, reason: str) -> None:
    with pytest.raises(HookCommandError) as caught:
        parse_hook_command(text)
    assert str(caught.value).startswith("unsupported hook command: ")
    assert reason in caught.value.reason


@pytest.mark.parametrize("text", ["", "   ", "\t\n"])
def test_blank(text: str) -> None:
    with pytest.raises(HookCommandError, match=r"^hook command is required$") as caught:
        parse_hook_command(text)
    assert caught.value.blank


def test_what_the_installer_uses() -> None:
    command = parse_hook_command("env A=1 B='x y' /opt/n hook --flag")
    assert command.env == (("A", "1"), ("B", "x y")) and command.environment == {"A": "1", "B": "x y"}
    assert (command.executable, command.subcommand, command.arguments) == ("/opt/n", "hook", ("--flag",))
    assert command.command_argv == ("/opt/n", "hook", "--flag")
    assert command.canonical() == "env A=1 'B=x y' /opt/n hook --flag"
    kimi = command.with_arguments("--provider", "kimi")
    assert kimi.text == "env A=1 B='x y' /opt/n hook --flag --provider kimi"
    assert kimi.arguments == ("--flag", "--provider", "kimi") and parse_hook_command(kimi.text) == kimi
    odd = command.with_arguments("it's")
    assert parse_hook_command(odd.text).argv[-1] == "it's"


# -- properties ----------------------------------------------------------------------------------------------
METACHARACTERS = ";&|()<>`$\n"
SAFE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./,:@%+="
_plain = st.text(alphabet=SAFE, min_size=1, max_size=8)
_single = st.text(alphabet=SAFE + ' ;&|()<>`$"\\*~#{}', max_size=8).map(lambda s: f"'{s}'")
_double = st.text(alphabet=SAFE + " ;&|()<>'*~#{}", max_size=8).map(lambda s: f'"{s}"')
_segment = st.one_of(_plain, _single, _double)


@st.composite
def _accepted_parts(draw: st.DrawFn) -> list[list[str]]:
    """Words (lists of segments) of an accepted command: /exe hook args..., each segment static."""
    exe = ["/" + draw(_plain), *draw(st.lists(_segment, max_size=2))]
    args = draw(st.lists(st.lists(_segment, min_size=1, max_size=3), max_size=3))
    return [exe, ["hook"], *args]


@given(_accepted_parts())
def test_generated_static_commands_are_accepted(parts: list[list[str]]) -> None:
    text = " ".join("".join(word) for word in parts)
    command = parse_hook_command(text)
    assert len(command.argv) == len(parts)
    assert command.argv == tuple(shlex.split(text))
    assert parse_hook_command(command.canonical()).argv == command.argv


@given(_accepted_parts(), st.sampled_from(METACHARACTERS), st.data())
def test_a_metacharacter_outside_quotes_is_refused(parts: list[list[str]], meta: str, data: st.DataObject) -> None:
    plain = [(w, s) for w, word in enumerate(parts) for s, seg in enumerate(word) if seg[0] not in "'\""]
    inserted = meta + "x" if meta == "$" else meta
    if data.draw(st.booleans()):  # as a word of its own, between two words
        position = data.draw(st.integers(1, len(parts)))
        parts = [*parts[:position], [inserted], *parts[position:]]
    else:  # inside an unquoted part of a word
        w, s = data.draw(st.sampled_from(plain))
        segment = parts[w][s]
        cut = data.draw(st.integers(0, len(segment)))
        parts[w][s] = segment[:cut] + inserted + segment[cut:]
    text = " ".join("".join(word) for word in parts)
    assume(set(_unquoted(text.strip())) & set(METACHARACTERS))  # a line break at either end is trimmed away
    with pytest.raises(HookCommandError):
        parse_hook_command(text)


_TOKENS = (
    *("a", "/", " ", "=", "#", "~", "\t", "'", '"', "\\", "$"),
    *METACHARACTERS,
    *("';'", "'|&'", '"<>"', '"()"', "'`$'", "\\;", "\\&", "\\|", "\\$", '"\\$"', "$'\\x3b'", "$'\\''"),
)


@given(st.lists(st.sampled_from(_TOKENS), max_size=12).map("".join))
def test_accepted_text_has_no_unquoted_metacharacter(tail: str) -> None:
    text = "/opt/x hook " + tail
    try:
        command = parse_hook_command(text)
    except HookCommandError:
        return
    assert not set(_unquoted(text.strip())) & set(METACHARACTERS)  # a hook command is trimmed first
    assume("$'" not in text and "\\$" not in text and "\\`" not in text)
    assert command.argv == tuple(shlex.split(text))


@given(st.text(min_size=0, max_size=12))
def test_any_argument_survives_quoting(word: str) -> None:
    assume(not any(c < " " or "\x7f" <= c <= "\x9f" for c in word))
    command = parse_hook_command("/opt/x hook " + quote_word(word))
    assert command.arguments == (word,)
    assert isinstance(command, HookCommand)


def _unquoted(text: str) -> str:
    """The characters of ``text`` outside quotes and not escaped (a small independent scanner)."""
    out: list[str] = []
    i, state = 0, ""
    while i < len(text):
        c = text[i]
        if state == "'":
            state = "" if c == "'" else state
        elif state in ('"', "$'"):
            if c == "\\":
                i += 1
            elif c == state[-1]:
                state = ""
        elif c == "\\":
            i += 1
        elif c == "$" and text[i + 1 : i + 2] == "'":
            state, i = "$'", i + 1
        elif c in "'\"":
            state = c
        else:
            out.append(c)
        i += 1
    return "".join(out)
