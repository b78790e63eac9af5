"""Templates are cut at their parameter lines, and their inline imports replaced by the code of the module."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from elydora_cli import packagedata
from elydora_cli.runtime import templateparams
from elydora_cli.runtime.generate import INLINE_LINE, _inlined, with_inlined_imports
from elydora_cli.runtime.templateparams import (
    JAVASCRIPT_LINE,
    PYTHON_LINE,
    cut_javascript,
    cut_python,
    joined,
    line_matches,
)

TEMPLATES = Path(templateparams.__file__).parent / "templates"


def test_python_parameter_lines() -> None:
    source = (
        "A = 1  # @param\n"
        "B: tuple[int, ...] = (1,)  # @param\n"
        "c = 3  # @param\n"  # lower case: not a parameter
        "D = 4  # @param trailing\n"  # the trail must end the line
        " E = 5  # @param\n"  # indented: not a parameter
        "F: x\n= 6  # @param\n"  # an annotation stays on its line
        "G:  = 7  # @param\n"
        "H =8  # @param\n"
        "I = 9  # @param"  # at the end of the text
    )
    texts, names = cut_python(source)
    assert names == ("A", "B", "I")
    assert texts[0] == "" and texts[1] == "\n" and texts[3] == ""
    assert "G:  = 7" in texts[2] and "F: x\n= 6" in texts[2]


def test_javascript_parameter_lines() -> None:
    texts, names = cut_javascript("const A = 1; // @param\nlet B = 2; // @param\nconst C = {}; // @param\n")
    assert names == ("A", "C")
    assert texts == ("", "\nlet B = 2; // @param\n", "\n")


@pytest.mark.parametrize("template", sorted(p.name for p in TEMPLATES.iterdir() if p.suffix in (".py", ".mjs")))
def test_every_template_comes_back_when_its_lines_are_put_back(template: str) -> None:
    source = packagedata.read_template(template)
    cut = cut_python if template.endswith(".py") else cut_javascript
    texts, names = cut(source)
    lines = [line for line in source.splitlines() if line.endswith(("  # @param", "; // @param"))]
    assert len(names) == len(lines)
    assert joined(texts, lines) == source


def test_inline_imports() -> None:
    source = (
        "from .flat import a, b  # @inline\n"
        "from . import a  # @inline\n"  # no module
        "from .x import a  # @inline trailing\n"
        "from .y import a\n"  # not marked
        "    from .z import a  # @inline\n"  # indented
        "from .w_1 import c  # @inline"
    )
    assert with_inlined_imports(source, lambda module: f"<code of {module}>") == (
        "<code of flat>\nfrom . import a  # @inline\nfrom .x import a  # @inline trailing\nfrom .y import a\n"
        "    from .z import a  # @inline\n<code of w_1>"
    )


def test_the_guard_holds_the_code_of_its_inlined_modules() -> None:
    source = packagedata.read_template("guard.py")

    def code_of(module: str) -> str:  # an inlined module's own inline imports too
        return with_inlined_imports(_inlined(module), code_of)

    inlined = with_inlined_imports(source, code_of)
    assert "  # @inline\n" not in inlined and "def parse_flat_object(" in inlined and "def read_stdin(" in inlined


def test_an_inline_import_may_list_its_names_in_parentheses() -> None:
    """As the import sorter writes a list too long for one line: the names up to the next ``)`` line."""
    source = (
        "from .x import (  # @inline\n    a,\n    b,\n)\nkept\n"
        "from .y import (  # @inline\n    a(\n)\n"  # not a name: left as it is
        "from .z import (  # @inline\n    c,\n)x\n"  # the ) line holds more: left too
    )
    assert with_inlined_imports(source, lambda module: f"<code of {module}>") == (
        "<code of x>\nkept\nfrom .y import (  # @inline\n    a(\n)\nfrom .z import (  # @inline\n    c,\n)x\n"
    )


def test_joined_puts_each_line_in_place() -> None:
    texts, names = cut_python("a\nX = 1  # @param\nb\nY: int = 2  # @param\n")
    assert names == ("X", "Y")
    assert joined(texts, ["X = 5", "Y: int = 6"]) == "a\nX = 5\nb\nY: int = 6\n"


_PIECES = ["\n", "A = 1  # @param", "B: int = 2  # @param", "const C = 3; // @param", "from .x import a  # @inline",
           "from .y import (  # @inline", "    b,", ")", "x", " ", "# @param", "\r\n", "É"]


@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join), st.sampled_from([PYTHON_LINE, JAVASCRIPT_LINE,
                                                                                       INLINE_LINE]))
def test_line_matches_finds_what_a_multiline_search_finds(source: str, line: str) -> None:
    """The search for the newline before a line finds the lines ``re.MULTILINE`` finds, at the same places."""
    expected = [(m.start(), m.end(), m.groups()) for m in re.finditer(line, source, re.MULTILINE)]
    assert [(start, end, m.groups()) for start, end, m in line_matches(line, source)] == expected


def test_a_line_pattern_starts_with_a_caret() -> None:
    with pytest.raises(ValueError, match="must start with"):
        list(line_matches("A = 1", "A = 1"))
