"""Where the tests' data lives: the vendored public corpora and the project's own fixtures (both in the repository).

``tests/`` is on ``sys.path`` (pytest inserts the directory of ``tests/conftest.py``), so any test can
``from locations import ...``. Every path is inside the repository: a clone with nothing beside it runs every test.
"""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CORPUS = PROJECT_ROOT / "tests" / "corpus"
"""Public conformance corpora, copied unchanged with their licences (tests/corpus/README.md)."""
JSONTESTSUITE = CORPUS / "jsontestsuite" / "test_parsing"
TOML_TEST = CORPUS / "toml-test" / "tests"
JCS = CORPUS / "jcs"

FIXTURES = PROJECT_ROOT / "fixtures"
"""Inputs written for this project (fixtures/README.md)."""
CONFIGS = FIXTURES / "configs"
PAYLOADS = FIXTURES / "payloads"
CAPTURED_PAYLOADS = PAYLOADS / "captured"
NEUTRAL_V1 = FIXTURES / "neutral-v1"
