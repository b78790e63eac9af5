"""Comment-preserving YAML editing, verified against PyYAML's safe loader.

``YamlDocument.parse(text)`` keeps the text; ``.set``, ``.insert`` and ``.remove`` splice whole lines of block
style and re-read the result to make sure it holds exactly the intended data (see :mod:`.document`).
``ReadOnlyYaml`` reads a text of the plain subset (:mod:`.plain`) without PyYAML.

The names below are imported on first use, so that a reader that needs only data does not load PyYAML.
"""

from __future__ import annotations

from .. import _lazy_exports
from ..typecheck import TYPE_CHECKING

if TYPE_CHECKING:
    from .document import YamlDocument
    from .readonly import ReadOnlyYaml

__all__ = ["ReadOnlyYaml", "YamlDocument"]

_HOMES = {
    "ReadOnlyYaml": "elydora_config.yaml.readonly",
    "YamlDocument": "elydora_config.yaml.document",
}
"""The module of each exported name."""

__getattr__ = _lazy_exports(globals(), _HOMES)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
