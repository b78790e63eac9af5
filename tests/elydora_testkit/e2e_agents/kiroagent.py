"""Kiro CLI (custom agent): not run by the suite (the reason below)."""

SKIP = (
    "Kiro CLI is not published on the npm registry or PyPI (vendor installer only)"
)
