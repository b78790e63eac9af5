"""Templates are cut at their parameter lines (and their inline imports replaced) by string methods exactly as
the multi-line patterns they replace did; the patterns, compiled here only, are the oracle."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from elydora_cli import packagedata
from elydora_cli.runtime import templateparams
from elydora_cli.runtime.generate import _inlined, with_inlined_imports
from elydora_cli.runtime.templateparams import cut_javascript, cut_python, joined

OLD_PYTHON = re.compile(r"^([A-Z_]+)(?:: [^=]+)? = .*  # @param$", re.MULTILINE)
OLD_JAVASCRIPT = re.compile(r"^const ([A-Z_]+) = .*; // @param$", re.MULTILINE)
OLD_INLINE = re.compile(r"^from \.(\w+) import (?:[\w, ]+  # @inline|\(  # @inline\n[\w, \n]*?\n\))$", re.MULTILINE)
TEMPLATES = Path(templateparams.__file__).parent / "templates"


def _old_cut(pattern: re.Pattern[str], source: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    texts, names, start = [], [], 0
    for match in pattern.finditer(source):
        texts.append(source[start : match.start()])
        names.append(match.group(1))
        start = match.end()
    texts.append(source[start:])
    return tuple(texts), tuple(names)


PIECES = st.sampled_from(
    ["A", "B_", "x", "const ", ": ", ":", " = ", "=", " ", "  # @param", "; // @param", "# @param", "\n", "\r",
     "tuple[int, ...]", "é", "  "]
)  # fmt: skip


@settings(max_examples=3000)
@example("A: x\ny = 1  # @param\nB = 2  # @param")  # an annotation running over a line break, as [^=]+ lets it
@example("A:  = 1  # @param\nA: = 2  # @param\nA = 3  # @param\n")
@example("const A = ; // @param\nconst A =; // @param")
@example("A =  # @param\nB: x =1  # @param\nC: xy= 1  # @param")  # " = " and the trail never overlap
@given(st.lists(PIECES, max_size=16).map("".join))
def test_cut_reads_templates_as_the_patterns_did(source: str) -> None:
    assert cut_python(source) == _old_cut(OLD_PYTHON, source), source
    assert cut_javascript(source) == _old_cut(OLD_JAVASCRIPT, source), source


@pytest.mark.parametrize("template", sorted(p.name for p in TEMPLATES.iterdir() if p.suffix in (".py", ".mjs")))
def test_every_template_is_cut_as_the_patterns_cut_it(template: str) -> None:
    source = packagedata.read_template(template)
    if template.endswith(".py"):
        assert cut_python(source) == _old_cut(OLD_PYTHON, source)
        inlined = OLD_INLINE.sub(lambda m: _inlined(m.group(1)), source)
        assert with_inlined_imports(source, _inlined) == inlined
    else:
        assert cut_javascript(source) == _old_cut(OLD_JAVASCRIPT, source)
    pattern = OLD_PYTHON if template.endswith(".py") else OLD_JAVASCRIPT
    texts = (cut_python(source) if template.endswith(".py") else cut_javascript(source))[0]
    assert joined(texts, [m.group(0) for m in pattern.finditer(source)]) == source  # the lines put back


INLINE_PIECES = st.sampled_from(
    ["from .", "flat", "x_1", "é", " import ", "a, b", ",", " ", "  # @inline", "\n", "from", ".", "\r", "(",
     ")", "    b,", "\n)", " import (  # @inline\n"]
)  # fmt: skip


@settings(max_examples=3000)
@example("from .x import a  # @inline\nfrom . import a  # @inline\nfrom .y import ,  # @inline")
@example("fromflat import a  # @inline\nfrom .x import a  # @inline  # @inline")
@example("from .x import (  # @inline\n    a,\n    b,\n)\nfrom .y import (  # @inline\n)\n)")
@example("from .x import (  # @inline\n\n)x\nfrom .z import (  # @inline\n\n)")
@example("from .x import (  # @inline\n    a(\n)")
@given(st.lists(INLINE_PIECES, max_size=10).map("".join))
def test_inline_imports_are_found_as_the_pattern_found_them(source: str) -> None:
    expected = OLD_INLINE.sub(lambda m: f"<code of {m.group(1)}>", source)
    assert with_inlined_imports(source, lambda module: f"<code of {module}>") == expected, source


def test_joined_puts_each_line_in_place() -> None:
    texts, names = cut_python("a\nX = 1  # @param\nb\nY: int = 2  # @param\n")
    assert names == ("X", "Y")
    assert joined(texts, ["X = 5", "Y: int = 6"]) == "a\nX = 5\nb\nY: int = 6\n"
