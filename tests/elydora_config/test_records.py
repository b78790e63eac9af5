"""``elydora_config.records``: the dataclass behaviour the package relies on, without code compiled per class."""

from __future__ import annotations

import subprocess
import sys
from typing import ClassVar

import pytest

from elydora_config import records
from elydora_config.records import FrozenRecordError, field, record


@record(frozen=True)
class Point:
    x: int
    y: int = 0
    tags: list[str] = field(default_factory=list)
    UNIT: ClassVar[str] = "px"


@record
class Counter:
    name: str
    seen: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.name = self.name.strip()


@record(frozen=True)
class Labelled(Point):
    label: str = ""


@record(eq=False, slots=True)
class Slim:
    a: int
    b: str = "b"


def test_init_binds_positional_keyword_and_defaults() -> None:
    p = Point(1, tags=["a"])
    assert (p.x, p.y, p.tags) == (1, 0, ["a"])
    assert list(vars(Point(tags=[], y=2, x=1))) == ["x", "y", "tags"] == list(vars(Point(1, 2, [])))  # field order
    assert Point(1).tags == [] and Point(1).tags is not Point(1).tags  # a fresh default per instance
    assert Point.UNIT == "px" and records.fields(Point) == ("x", "y", "tags")


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((), {}, "missing required argument: 'x'"),
        ((1, 2, [], 4), {}, "takes 3 positional arguments but 4 were given"),
        ((1,), {"x": 2}, "multiple values for argument 'x'"),
        ((1,), {"z": 2}, "unexpected keyword argument 'z'"),
    ],
)
def test_wrong_arguments_are_type_errors(args: tuple[object, ...], kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(TypeError, match=message):
        Point(*args, **kwargs)  # type: ignore[arg-type, misc]


def test_frozen_records_refuse_assignment_and_hash_by_value() -> None:
    p = Point(1, 2)
    with pytest.raises(FrozenRecordError):
        p.x = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del p.y  # type: ignore[misc]
    assert p == Point(1, 2) and p != Point(2, 1)
    assert hash(Labelled(1, 2, tags=(), label="a")) == hash(Labelled(1, 2, tags=(), label="a"))  # type: ignore[arg-type]
    assert p != (1, 2, []) and repr(p) == "Point(x=1, y=2, tags=[])"


def test_mutable_records_run_post_init_and_are_unhashable() -> None:
    c = Counter("  n ")
    assert c.name == "n" and c == Counter("n")
    c.seen["a"] = 1
    assert c != Counter("n")
    with pytest.raises(TypeError):
        hash(c)


def test_inherited_fields_come_first() -> None:
    assert records.fields(Labelled) == ("x", "y", "tags", "label")
    assert Labelled(1, label="l") == Labelled(1, 0, [], "l") and Labelled(1) != Point(1)


def test_slots_and_eq_false() -> None:
    s = Slim(1)
    assert not hasattr(s, "__dict__") and s.b == "b"
    with pytest.raises(AttributeError):
        s.other = 1  # type: ignore[attr-defined]
    assert s != Slim(1)  # identity equality


def test_replace_and_asdict() -> None:
    p = Labelled(1, tags=["t"], label="a")
    assert records.replace(p, label="b") == Labelled(1, 0, ["t"], "b")
    assert records.asdict(p) == {"x": 1, "y": 0, "tags": ["t"], "label": "a"}
    assert records.asdict(Counter("n", {"k": 1})) == {"name": "n", "seen": {"k": 1}}


def test_replace_keeps_the_values_and_checks_the_names() -> None:
    p = Labelled(1, tags=["t"], label="a")
    q = records.replace(p, y=5)
    assert q == Labelled(1, 5, ["t"], "a") and q.tags is p.tags  # the values themselves, as dataclasses does
    with pytest.raises(FrozenRecordError):
        q.y = 6  # type: ignore[misc]
    with pytest.raises(TypeError) as replaced:
        records.replace(p, z=1)
    with pytest.raises(TypeError) as made:
        Labelled(1, z=1)  # type: ignore[call-arg]
    assert str(replaced.value) == str(made.value) == "Labelled() got an unexpected keyword argument 'z'"
    c = Counter("n")
    c.extra = 1  # type: ignore[attr-defined]
    assert not hasattr(records.replace(c, seen={"a": 1}), "extra")  # fields only
    assert records.replace(c, name="  m ").name == "m"  # __post_init__ runs again
    assert records.replace(Slim(1), b="c").b == "c"


def test_defining_records_does_not_import_dataclasses_or_inspect() -> None:
    code = (
        "import sys\n"
        "from elydora_config.records import record, field\n"
        "@record(frozen=True)\n"
        "class A:\n"
        "    a: int\n"
        "    b: tuple = ()\n"
        "    c: list = field(default_factory=list)\n"
        "A(1); hash(A(2, c=None)); repr(A(3))\n"
        "print(sorted({'dataclasses', 'inspect', 'ast'} & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
