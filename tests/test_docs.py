"""The documentation holds together: docs/README.md lists every page, and every link between pages lands.

A link is a Markdown link with a relative target (``[text](page.md#part)``) in the README or a page of
docs/, or a ``docs/<page>.md`` named in a docstring or comment of the code; its file must exist and its
``#part``, if any, must be a heading of that file (as GitHub makes heading anchors).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from locations import PROJECT_ROOT

DOCS = PROJECT_ROOT / "docs"
INDEX = DOCS / "README.md"
CODE = ("elydora_config", "elydora_cli", "benchmarks", "tests", "ansible")
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_NAMED_PAGE = re.compile(r"\bdocs/([\w-]+\.md)\b")


def pages() -> list[Path]:
    """Every page of docs/: the Markdown files and the API reference's source folder (docs/api/)."""
    return sorted([*DOCS.glob("*.md"), *(p for p in DOCS.iterdir() if p.is_dir() and p.name != "__pycache__")])


def anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    return {anchor(line.lstrip("#")) for line in text.splitlines() if re.match(r"#{1,6} ", line)}


def links(page: Path) -> list[str]:
    return _LINK.findall(_FENCE.sub("", page.read_text(encoding="utf-8")))


def broken(page: Path, target: str) -> str | None:
    """Why ``target`` (a link in ``page``) lands nowhere, or None when it lands."""
    if re.match(r"[a-z]+:", target):  # https:, mailto: ...: outside the repository, not checked offline
        return None
    path, _, part = target.partition("#")
    file = (page.parent / path).resolve() if path else page
    if not file.exists():
        return f"{page.relative_to(PROJECT_ROOT)}: {target}: no such file"
    if part and file.suffix == ".md" and part not in anchors(file):
        return f"{page.relative_to(PROJECT_ROOT)}: {target}: no heading #{part} in {file.name}"
    return None


def test_the_index_lists_every_page() -> None:
    listed = {target.partition("#")[0].rstrip("/") for target in links(INDEX)}
    missing = [page.name for page in pages() if page != INDEX and page.name not in listed]
    assert not missing, f"docs/README.md does not list {missing}"


def test_every_link_of_the_readme_and_the_docs_lands() -> None:
    problems = [problem for page in [PROJECT_ROOT / "README.md", *DOCS.glob("*.md")]
                for target in links(page) if (problem := broken(page, target))]
    assert not problems, problems


def test_every_page_the_code_names_exists() -> None:
    named = {(source.relative_to(PROJECT_ROOT), page) for folder in CODE
             for source in (PROJECT_ROOT / folder).rglob("*.py")
             for page in _NAMED_PAGE.findall(source.read_text(encoding="utf-8"))}
    assert named, "the code names no page: the pattern is wrong"
    missing = sorted(str(source) + ": docs/" + page for source, page in named if not (DOCS / page).is_file())
    assert not missing, missing


@pytest.mark.parametrize(("target", "expected"), [
    ("transactions.md", None),
    ("transactions.md#no-such-part", "no heading #no-such-part"),
    ("no-such-page.md", "no such file"),
    ("https://example.org/x.md", None),
])
def test_the_link_check_tells_a_landing_link_from_a_broken_one(target: str, expected: str | None) -> None:
    problem = broken(INDEX, target)
    assert problem is None if expected is None else expected in (problem or "")
