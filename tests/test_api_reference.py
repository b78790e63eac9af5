"""The API reference's build (docs/api/conf.py) fails on what would mislead a reader, and links what it can.

These tests build small pages with the reference's own configuration; the whole reference is built by
``.ci/run`` (docs/README.md). They need Sphinx, which the ``docs`` extra installs (``pip install -e ".[docs]"``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from locations import PROJECT_ROOT

import elydora_config

pytest.importorskip("sphinx")

CONF = PROJECT_ROOT / "docs" / "api" / "conf.py"
DESCRIBED = (".. py:class:: Transaction\n   :module: elydora_config\n\n"
             ".. py:exception:: MalformedConfigError\n   :module: elydora_config\n\n")


def build(tmp_path: Path, page: str, module: str = "") -> subprocess.CompletedProcess[str]:
    """Build ``page`` (reStructuredText) as the index of a site configured by docs/api/conf.py, warnings fatal;
    ``module``, if given, is importable there as ``sample``."""
    source = tmp_path / "source"
    source.mkdir()
    (source / "conf.py").write_text(CONF.read_text(encoding="utf-8"), encoding="utf-8")
    (source / "index.rst").write_text(f"Test\n====\n\n{page}", encoding="utf-8")
    (tmp_path / "sample.py").write_text(module, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "sphinx", "--no-color", "-W", "-n", "--keep-going", "-q", "-b", "html",
                           str(source), str(tmp_path / "html")], capture_output=True, text=True, timeout=300, env=env)


def not_found(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stderr.splitlines() if "reference target not found" in line]


def test_a_reference_to_a_name_that_does_not_exist_fails_the_build(tmp_path: Path) -> None:
    done = build(tmp_path, DESCRIBED + "See :func:`elydora_config.no_such_function` and :class:`NoSuchClass`.\n")
    assert done.returncode != 0
    assert [line.split("not found: ")[1] for line in not_found(done)] == [
        "elydora_config.no_such_function [ref.func]", "NoSuchClass [ref.class]"]


def test_a_malformed_docstring_fails_the_build(tmp_path: Path) -> None:
    module = 'def f() -> None:\n    """Returns ``None, a literal left open."""\n'
    done = build(tmp_path, DESCRIBED + ".. autofunction:: sample.f\n", module)
    assert done.returncode != 0
    assert "docstring of sample.f:1: WARNING: Inline literal start-string without end-string" in done.stderr


def test_an_exported_name_or_a_public_module_left_out_fails_the_build(tmp_path: Path) -> None:
    done = build(tmp_path, "Nothing here.\n")
    assert done.returncode != 0
    for name in elydora_config.__all__:
        assert f"elydora_config.{name} is exported but not in the API reference" in done.stderr
    assert "the public module elydora_config.transaction is not in the API reference" in done.stderr


def test_a_name_is_linked_by_the_module_that_defines_it_and_by_an_import(tmp_path: Path) -> None:
    # elydora_config.transaction.Transaction is described as elydora_config.Transaction; jsonc.diagnostics
    # imports MalformedConfigError from errors.py; a standard-library name is shown as text, not linked.
    page = DESCRIBED + (".. py:currentmodule:: elydora_config.jsonc.diagnostics\n\n"
                        "A :class:`~elydora_config.transaction.Transaction`, a :class:`MalformedConfigError`, "
                        "an :class:`os.PathLike`.\n")
    done = build(tmp_path, page)
    assert not_found(done) == []
    html = (tmp_path / "html" / "index.html").read_text(encoding="utf-8")
    for name in ("Transaction", "MalformedConfigError"):
        assert f'<a class="reference internal" href="#elydora_config.{name}"' in html
    assert "PathLike" in html and 'href="#os.PathLike"' not in html
