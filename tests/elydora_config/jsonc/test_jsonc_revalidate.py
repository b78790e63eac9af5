"""Re-validation after an edit: the new value alone, or the edited container on its own new text."""

from __future__ import annotations

import pytest

from elydora_config.errors import MalformedConfigError
from elydora_config.jsonc import JSONC
from elydora_config.jsonc._fast_scan import ValueScanner
from elydora_config.jsonc._located import Walker
from elydora_config.jsonc._revalidate import check_value_text, rebuilt_container


def test_one_new_value_is_measured_and_anything_else_refused() -> None:
    scanner = ValueScanner('{"a": 1}', JSONC)
    assert check_value_text(scanner, '{"b": [1, "x"]}', "f.json") == 15
    for broken in ("1, 2", '"open', "", '{"a": 1, "a": 2}'):
        with pytest.raises(MalformedConfigError, match="internal error"):
            check_value_text(scanner, broken, "f.json")


def test_the_edited_container_is_walked_again_and_keeps_its_offsets_in_the_text() -> None:
    text = '{"x": 0, "c": {"a": [1], "b": 2}}'
    scanner = ValueScanner(text, JSONC)
    container = Walker(text, JSONC, scanner, None).walk(0, validate=True, descend=1).members[1].node
    assert container is not None and container.start == 14
    b = container.members[1]
    rebuilt, delta = rebuilt_container(text, [(b.value_start, b.value_end, "[3, 4]")], container, JSONC, None)
    assert delta == 5 and rebuilt.start == 14 and rebuilt.end == container.end + 5
    assert [m.key for m in rebuilt.members] == ["a", "b"] and rebuilt.members[1].value_start == b.value_start
    with pytest.raises(MalformedConfigError, match="internal error"):
        rebuilt_container(text, [(b.start, b.start, '"a": 0, ')], container, JSONC, None)  # a duplicate key
