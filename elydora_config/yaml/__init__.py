"""Comment-preserving YAML editing, verified against PyYAML's safe loader.

``YamlDocument.parse(text)`` keeps the text; ``.set``, ``.insert`` and ``.remove`` splice whole lines of block
style and re-read the result to make sure it holds exactly the intended data (see :mod:`.document`).
"""

from __future__ import annotations

from .document import YamlDocument

__all__ = ["YamlDocument"]
