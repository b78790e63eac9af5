"""The two JSON dialects the editor reads and writes: strict RFC 8259 JSON and JSONC."""

from __future__ import annotations

from ..records import record


@record(frozen=True)
class Dialect:
    """What a text may contain beyond RFC 8259.

    ``comments``: ``//`` line comments and ``/* */`` block comments count as whitespace.
    ``trailing_commas``: a comma may follow the last member of an object or array.
    ``bom``: a leading U+FEFF byte order mark is accepted (and kept); elsewhere it is always an error.
    ``duplicate_keys``: an object may repeat a key (RFC 8259 only says names SHOULD be unique); the last
    occurrence is the one ``value``/``get``/``set``/``remove`` see.  False in every predefined dialect.
    ``NaN``/``Infinity`` and control characters inside strings are refused in every dialect.
    ``spoken``: the dialect in a user's words, for error messages (the ``name`` when empty).
    """

    name: str
    comments: bool
    trailing_commas: bool
    bom: bool
    duplicate_keys: bool = False
    spoken: str = ""

    @property
    def in_words(self) -> str:
        """How an error message names the dialect: ``spoken``, else ``name``."""
        return self.spoken or self.name

    def __repr__(self) -> str:
        return f"Dialect({self.name})"


STRICT_JSON = Dialect("STRICT_JSON", comments=False, trailing_commas=False, bom=False, spoken="strict JSON")
"""RFC 8259: no comments, no trailing commas, no BOM."""

JSONC = Dialect("JSONC", comments=True, trailing_commas=True, bom=True, spoken="JSON with comments")
"""JSON with comments, trailing commas allowed, a leading BOM accepted and kept."""

JSONC_NO_TRAILING_COMMAS = Dialect(
    "JSONC_NO_TRAILING_COMMAS",
    comments=True,
    trailing_commas=False,
    bom=True,
    spoken="JSON with comments but no trailing commas",
)
"""JSON with comments whose reader refuses trailing commas (Gemini CLI, Qwen Code)."""
