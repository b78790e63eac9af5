"""The hook-command grammar: which ``--hook-command`` texts an agent may be configured to run.

A hook command is one simple shell command whose words are all static::

    [env NAME=value ...] /absolute/executable hook [argument ...]

Words may use single quotes, double quotes without expansions, backslash escapes and ANSI-C ``$'...'``
strings. Everything the shell would interpret is refused with the reason: operators and newlines (more than
one command), pipelines, redirects, background jobs, subshells and groups, command, process and parameter
substitutions, arithmetic, globs, tilde expansion, comments, shell keywords, a bare ``NAME=value`` before the
command, ``env`` options, and relative executables. The parser never runs a shell.

:class:`HookCommand` gives the installer the argv (to run probes without a shell), the environment
assignments, the text as given (what goes into the agent's settings) and a canonical re-quoted rendering.
"""

from __future__ import annotations

from elydora_config.records import record

SUBCOMMAND = "hook"
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-")
_KEYWORDS = frozenset(
    (
        *("!", "[[", "]]", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function"),
        *("if", "in", "select", "then", "time", "until", "while"),
    )
)
_DQ_ESCAPES = frozenset('$`"\\')
_ANSI_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_HEX = frozenset("0123456789abcdefABCDEF")


class HookCommandError(ValueError):
    """A hook command that is blank or outside the grammar; ``reason`` says what was refused."""

    def __init__(self, reason: str, *, blank: bool = False) -> None:
        self.reason = reason
        self.blank = blank
        super().__init__("hook command is required" if blank else f"unsupported hook command: {reason}")


def quote_word(word: str) -> str:
    """``word`` as one static shell word (unquoted when it is made of safe characters only)."""
    if word and all(c in _SAFE for c in word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def _is_name(text: str) -> bool:
    return text.isascii() and text.isidentifier()


def _has_control(text: str) -> bool:
    return any(c < " " or "\x7f" <= c <= "\x9f" for c in text)


@record(frozen=True)
class HookCommand:
    """An accepted hook command."""

    text: str
    """The command as given, trimmed: what the agent's settings store."""
    argv: tuple[str, ...]
    """Every word after quote removal, ``env`` and its assignments included (run without a shell)."""
    env: tuple[tuple[str, str], ...]
    """``NAME=value`` assignments of a leading ``env``, in order."""
    executable_index: int

    @property
    def executable(self) -> str:
        return self.argv[self.executable_index]

    @property
    def subcommand(self) -> str:
        return self.argv[self.executable_index + 1]

    @property
    def arguments(self) -> tuple[str, ...]:
        """The words after the sub-command."""
        return self.argv[self.executable_index + 2 :]

    @property
    def command_argv(self) -> tuple[str, ...]:
        """The argv without the ``env`` prefix (to run with :attr:`environment` added to a clean env)."""
        return self.argv[self.executable_index :]

    @property
    def environment(self) -> dict[str, str]:
        return dict(self.env)

    def canonical(self) -> str:
        """A normalised rendering: single spaces, each word minimally quoted; parses to the same argv."""
        return " ".join(quote_word(word) for word in self.argv)

    def with_arguments(self, *extra: str) -> HookCommand:
        """The command with words appended (for example ``--provider kimi``), text and argv alike."""
        text = self.text + "".join(" " + quote_word(word) for word in extra)
        return HookCommand(text, self.argv + tuple(extra), self.env, self.executable_index)


@record
class _Word:
    chars: list[str]
    quoted: bool = False
    prefix: str = ""
    """The unquoted characters before the first quoted or escaped one (assignment detection)."""
    last_unquoted: str = ""

    @property
    def value(self) -> str:
        return "".join(self.chars)


class _Lexer:
    """Splits a hook command into static words, refusing anything the shell would interpret."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.words: list[_Word] = []
        self.word: _Word | None = None

    def run(self) -> list[_Word]:
        text = self.text
        while self.pos < len(text):
            c = text[self.pos]
            if c in " \t":
                self._end_word()
                self.pos += 1
            elif c == "'":
                self._single()
            elif c == '"':
                self._double()
            elif c == "\\":
                self._escape()
            elif c == "$":
                self._dollar()
            else:
                self._plain(c)
        self._end_word()
        return self.words

    def _current(self) -> _Word:
        if self.word is None:
            self.word = _Word([])
        return self.word

    def _end_word(self) -> None:
        if self.word is not None:
            self.words.append(self.word)
            self.word = None

    def _add(self, chars: str, *, quoted: bool) -> None:
        word = self._current()
        word.chars.append(chars)
        if quoted:
            word.quoted = True
            word.last_unquoted = ""
        else:
            if not word.quoted:
                word.prefix += chars
            word.last_unquoted = chars[-1:]

    def _next(self, offset: int = 1) -> str:
        return self.text[self.pos + offset : self.pos + offset + 1]

    def _plain(self, c: str) -> None:
        reason = self._operator_reason(c)
        if reason is None:
            if c == "#" and self.word is None:
                reason = "a comment ('#')"
            elif c in "*?[":
                reason = f"pathname expansion (unquoted {c!r})"
            elif c == "~" and (self.word is None or self.word.last_unquoted in ("=", ":")):
                reason = "tilde expansion (unquoted '~')"
        if reason is not None:
            raise HookCommandError(reason)
        self._add(c, quoted=False)
        self.pos += 1

    def _operator_reason(self, c: str) -> str | None:
        nxt = self._next()
        if c == ";":
            return "more than one command (';')"
        if c == "&":
            if nxt == "&":
                return "more than one command ('&&')"
            return "a redirect ('&>')" if nxt == ">" else "a background job ('&')"
        if c == "|":
            if nxt == "|":
                return "more than one command ('||')"
            return "a pipeline ('|&')" if nxt == "&" else "a pipeline ('|')"
        if c in "<>":
            return f"process substitution ('{c}(')" if nxt == "(" else f"a redirect ('{c}')"
        if c in "()":
            return f"a subshell or grouping ('{c}')"
        if c in "{}":
            return f"grouping or brace expansion ('{c}')"
        if c == "`":
            return "command substitution ('`')"
        return None

    def _single(self) -> None:
        end = self.text.find("'", self.pos + 1)
        if end < 0:
            raise HookCommandError("it does not parse: unterminated single quote")
        self._add(self.text[self.pos + 1 : end], quoted=True)
        self.pos = end + 1

    def _double(self) -> None:
        text = self.text
        i = self.pos + 1
        out: list[str] = []
        while i < len(text):
            c = text[i]
            if c == '"':
                self._add("".join(out), quoted=True)
                self.pos = i + 1
                return
            if c == "\\" and text[i + 1 : i + 2] in _DQ_ESCAPES:
                out.append(text[i + 1])
                i += 2
                continue
            if c == "$":
                raise HookCommandError("an expansion inside double quotes ('$')")
            if c == "`":
                raise HookCommandError("command substitution inside double quotes ('`')")
            out.append(c)
            i += 1
        raise HookCommandError("it does not parse: unterminated double quote")

    def _escape(self) -> None:
        nxt = self._next()
        if not nxt:
            raise HookCommandError("it does not parse: a trailing backslash")
        self._add(nxt, quoted=True)
        self.pos += 2

    def _dollar(self) -> None:
        nxt = self._next()
        if nxt == "'":
            self._ansi_c()
            return
        if nxt == '"':
            raise HookCommandError("a locale-translated string ('$\"')")
        if nxt == "(":
            inner = "arithmetic expansion ('$((')" if self._next(2) == "(" else "command substitution ('$(')"
            raise HookCommandError(inner)
        if nxt == "[":
            raise HookCommandError("arithmetic expansion ('$[')")
        raise HookCommandError("parameter expansion ('$')")

    def _ansi_c(self) -> None:
        text = self.text
        i = self.pos + 2
        out: list[str] = []
        while i < len(text):
            c = text[i]
            if c == "'":
                self._add("".join(out), quoted=True)
                self.pos = i + 1
                return
            if c != "\\":
                out.append(c)
                i += 1
                continue
            decoded, i = _ansi_escape(text, i + 1)
            out.append(decoded)
        raise HookCommandError("it does not parse: unterminated $'...' string")


def _ansi_escape(text: str, i: int) -> tuple[str, int]:
    """Decode the escape whose letter is at ``text[i]`` (inside ``$'...'``); (text, index after it)."""
    e = text[i : i + 1]
    if not e:
        return "\\", i
    if e in _ANSI_SIMPLE:
        return _ANSI_SIMPLE[e], i + 1
    if e in "01234567":
        j = i
        while j < i + 3 and j < len(text) and text[j] in "01234567":
            j += 1
        return chr(int(text[i:j], 8) & 0xFF), j
    width = {"x": 2, "u": 4, "U": 8}.get(e)
    if width is not None:
        j = i + 1
        while j < i + 1 + width and j < len(text) and text[j] in _HEX:
            j += 1
        if j == i + 1:
            return "\\" + e, i + 1
        code = int(text[i + 1 : j], 16)
        if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            raise HookCommandError("an invalid character escape in $'...'")
        return chr(code), j
    if e == "c" and text[i + 1 : i + 2]:
        return chr(ord(text[i + 1]) & 0x1F), i + 2
    return "\\" + e, i + 1


def parse_hook_command(text: str) -> HookCommand:
    """Parse and check a hook command; :class:`HookCommandError` names the first thing refused."""
    stripped = text.strip()
    if not stripped:
        raise HookCommandError("the command is blank", blank=True)
    if "\n" in stripped or "\r" in stripped:
        raise HookCommandError("more than one command (a line break)")
    if _has_control(stripped.replace("\t", " ")):
        raise HookCommandError("a control character")
    words = _Lexer(stripped).run()
    if not words:
        raise HookCommandError("no command")
    first = words[0]
    name, equals, _ = first.prefix.partition("=")
    if equals and _is_name(name):
        raise HookCommandError(f"a bare assignment ({name}=...) before the command; use env {name}=value")
    if not first.quoted and first.value in _KEYWORDS:
        raise HookCommandError(f"the shell keyword {first.value!r}")
    argv = tuple(word.value for word in words)
    if any(_has_control(word) for word in argv):
        raise HookCommandError("a control character")
    index, env = _env_prefix(argv)
    if len(argv) - index < 2:
        raise HookCommandError(f"expected an absolute executable followed by `{SUBCOMMAND}`")
    executable, sub = argv[index], argv[index + 1]
    if not executable.startswith("/"):
        raise HookCommandError(f"a relative executable ({executable!r}); use an absolute path")
    if sub != SUBCOMMAND:
        raise HookCommandError(f"the sub-command must be `{SUBCOMMAND}`, not {sub!r}")
    return HookCommand(stripped, argv, env, index)


def _env_prefix(argv: tuple[str, ...]) -> tuple[int, tuple[tuple[str, str], ...]]:
    """(index of the executable, assignments) for a command that may start with ``env NAME=value ...``."""
    if len(argv) < 2 or argv[0].rsplit("/", 1)[-1] != "env":
        return 0, ()
    assignments: list[tuple[str, str]] = []
    index = 1
    while index < len(argv):
        word = argv[index]
        if word.startswith("-"):
            raise HookCommandError(f"an env option ({word!r}); only NAME=value assignments are allowed")
        if "=" not in word or word.startswith("/"):
            break
        name, _, value = word.partition("=")
        if not _is_name(name):
            raise HookCommandError(f"an invalid environment variable name ({name!r})")
        assignments.append((name, value))
        index += 1
    if not assignments:
        raise HookCommandError("env without a NAME=value assignment")
    if index >= len(argv):
        raise HookCommandError("no executable after the env assignments")
    return index, tuple(assignments)
