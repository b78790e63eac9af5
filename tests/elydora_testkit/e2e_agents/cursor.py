"""Cursor: not run by the suite (the reason below)."""

SKIP = (
    "the Cursor agent CLI is not published on the npm registry or PyPI (it is installed from cursor.com, "
    "which this machine cannot reach)"
)
