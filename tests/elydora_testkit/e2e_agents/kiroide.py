"""Kiro IDE: not run by the suite (the reason below)."""

SKIP = (
    "the Kiro IDE is a desktop download, not published on the npm registry or PyPI"
)
