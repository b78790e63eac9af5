"""The ``.env`` parser against what Node's dotenv 17.4 returns for the same texts (expectations recorded from it)."""

from __future__ import annotations

import pytest

from elydora_cli.plug.dotenv import owned_or_first, parse

NODE_DOTENV_17 = [
    ("export QWEN_HOME = /srv/qwen # where\n", {"QWEN_HOME": "/srv/qwen"}),
    ("QWEN_HOME: ~/alt\n", {"QWEN_HOME": "~/alt"}),
    ("QWEN_HOME:~/alt\n", {}),
    ('QWEN_HOME="a\\nb"\n', {"QWEN_HOME": "a\nb"}),
    ("QWEN_HOME='a\\nb'\n", {"QWEN_HOME": "a\\nb"}),
    ("QWEN_HOME=`x y`\n", {"QWEN_HOME": "x y"}),
    ('QWEN_HOME="multi\nline"\nNEXT=1\n', {"QWEN_HOME": "multi\nline", "NEXT": "1"}),
    ("QWEN_HOME=first\nQWEN_HOME=second\n", {"QWEN_HOME": "second"}),
    ("QWEN_HOME=\n", {"QWEN_HOME": ""}),
    ("# QWEN_HOME=commented\n", {}),
    ("QWEN_HOME=value#not-a-comment-start\n", {"QWEN_HOME": "value"}),
    ('QWEN_HOME="unterminated\nOTHER=2\n', {"QWEN_HOME": '"unterminated', "OTHER": "2"}),
    ("QWEN_HOME=a\r\nOTHER=b\r\n", {"QWEN_HOME": "a", "OTHER": "b"}),
    ("  QWEN_HOME  =   padded   \n", {"QWEN_HOME": "padded"}),
    ('QWEN_HOME="quoted" # comment\n', {"QWEN_HOME": "quoted"}),
    ("not a line\nQWEN_HOME=ok\n", {"QWEN_HOME": "ok"}),
    ("Q\u00a0=\u2028x\n", {"Q": "x"}),
    ("-=.=  \u2028'\\\\B'", {"-": ".=  \u2028\\\\B"}),
    ("", {}),
    ("QWEN_HOME\n# no separator on any line\n", {}),
]


@pytest.mark.parametrize(("text", "expected"), NODE_DOTENV_17)
def test_parse_matches_node_dotenv(text, expected):
    assert parse(text) == expected


@pytest.mark.parametrize(
    ("env", "files", "expected"),
    [
        ({}, [{}, {"K": "b"}], "b"),
        ({}, [{"K": ""}, {"K": "b"}], "b"),  # an empty value in a file does not count
        ({}, [{"K": "a"}, {"K": "b"}], "a"),  # the first file that sets it wins
        ({"K": ""}, [{"K": "a"}], ""),  # the environment owns a key even when it is empty
        ({"K": "env"}, [{"K": "a"}], "env"),
        ({}, [{}, {}], None),
    ],
)
def test_owned_or_first(env, files, expected):
    assert owned_or_first("K", env, files) == expected


def test_32k_blank_lines_are_each_scanned_once() -> None:
    """A match attempt that starts on a blank line ends on that line: before, its leading space ran over every
    blank line after it (and then backtracked), so 32k blank lines before a comment cost ~30 s. The results are
    those of the longer matches (``python -m benchmarks.parsers_bounded`` measures the per-line cost)."""
    import re

    from elydora_cli.plug.dotenv import _LINE_SOURCE

    _LINE = re.compile(_LINE_SOURCE)
    blank = "  \n\t\n \u2028\n"
    assert _LINE.match(blank + "K=v\n") is None
    assert [m.start() for m in _LINE.finditer(blank + "K=v\n")] == [len(blank)]
    text = blank * 11_000 + "# a comment\n  export K = v # c\n" + blank + "J='multi\n  line'\n"
    assert parse(text) == {"K": "v", "J": "multi\n  line"}
