"""Syntax-preserving TOML editing, verified against ``tomllib``.

``TomlDocument.parse(text)`` keeps the text; ``.set``, ``.remove``, ``.insert`` and ``.append_table``
splice the minimal text and re-parse the result to make sure it holds exactly the intended data.
"""

from elydora_config.toml.document import MissingPathError, TomlDocument

__all__ = ["MissingPathError", "TomlDocument"]
