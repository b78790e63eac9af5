"""Comment-preserving YAML editing, verified against PyYAML's safe loader.

``YamlDocument.parse(text)`` keeps the text; ``.get``, ``.has`` and ``.value`` read it; ``.set``, ``.insert`` and
``.remove`` splice whole lines of block style and re-read the result to make sure it holds exactly the intended
data (see :mod:`._document`). Importing this package loads PyYAML.
"""

from ._document import YamlDocument

__all__ = ["YamlDocument"]
