"""Record classes: ``@record`` gives a class what ``@dataclasses.dataclass`` would, without compiling code.

``@dataclass`` writes and compiles the source of each class's methods when its module is imported, and
importing :mod:`dataclasses` brings :mod:`inspect` and :mod:`ast`. A command that only reads (``elydora
status``) defines some eighty record classes and makes a few instances of each, so :func:`record` builds
the methods instead from functions shared by every record, which read the class's field list (what that
saves is measured in ``benchmarks/README.md``).

Supported: annotated fields in order (inherited from record bases), plain defaults and
``field(default_factory=...)``, ``frozen``, ``eq`` (``__hash__`` from the fields when frozen, none when
mutable, as with dataclasses), ``slots``, ``__post_init__``. Use this module's :func:`replace`,
:func:`asdict` and :func:`fields` on records (the :mod:`dataclasses` functions do not know them).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
elif sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:  # pragma: no cover - Python 3.10: the marker only matters to type checkers

    def dataclass_transform(**_kwargs: Any) -> Callable[[Any], Any]:
        """``typing.dataclass_transform`` of Python 3.11: a marker for type checkers, nothing at run time."""
        return lambda function: function


T = TypeVar("T")
C = TypeVar("C", bound=type)

__all__ = ["FrozenRecordError", "asdict", "field", "fields", "record", "replace"]

_FIELDS = "__record_fields__"
"""The class attribute holding a record's fields: name -> default (:data:`_NONE` when required)."""


class FrozenRecordError(AttributeError):
    """Assignment to a field of a frozen record (an ``AttributeError``, as ``dataclasses.FrozenInstanceError``)."""


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], T]) -> T:
    """A field whose default is ``default_factory()``, called for each instance."""
    return _Factory(default_factory)  # type: ignore[return-value]


_NONE: Any = object()


def _is_classvar(annotation: object) -> bool:
    """Whether an annotation (a string: the modules using records have ``from __future__ import annotations``)
    names ``ClassVar``."""
    return str(annotation).split("[", 1)[0].rsplit(".", 1)[-1] == "ClassVar"


def _fields_of(cls: type) -> dict[str, object]:
    """``cls``'s fields (name -> default, or ``_NONE``): its record bases' first, then its own annotations."""
    found: dict[str, object] = {}
    for base in reversed(cls.__mro__[1:]):
        found.update(base.__dict__.get(_FIELDS, {}))
    own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 - importing inspect is what records avoid
    for name, annotation in own.items():
        if not _is_classvar(annotation):
            found[name] = cls.__dict__.get(name, _NONE)
    return found


def _bind(cls: type, spec: dict[str, object], args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """The field values of ``cls(*args, **kwargs)``, defaults filled in, or the ``TypeError`` a dataclass raises."""
    names = tuple(spec)
    if len(args) > len(names):
        raise TypeError(f"{cls.__name__}() takes {len(names)} positional arguments but {len(args)} were given")
    values = list(args)
    for name in names[len(args) :]:
        if name in kwargs:
            values.append(kwargs.pop(name))
            continue
        default = spec[name]
        if default is _NONE:
            raise TypeError(f"{cls.__name__}() missing required argument: {name!r}")
        values.append(default.make() if isinstance(default, _Factory) else default)
    if kwargs:
        name = next(iter(kwargs))
        what = "got multiple values for argument" if name in names else "got an unexpected keyword argument"
        raise TypeError(f"{cls.__name__}() {what} {name!r}")
    return values


def _make_init(cls: type, spec: dict[str, object]) -> Callable[..., None]:
    names = tuple(spec)
    set_field = object.__setattr__  # also past a frozen record's own __setattr__, and into slots
    post_init = hasattr(cls, "__post_init__")

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        values = args if not kwargs and len(args) == len(names) else _bind(cls, spec, args, kwargs)
        for name, value in zip(names, values, strict=True):
            set_field(self, name, value)
        if post_init:
            self.__post_init__()

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _values(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, name) for name in getattr(self, _FIELDS))


def _repr(self: Any) -> str:
    inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in getattr(self, _FIELDS))
    return f"{type(self).__qualname__}({inner})"


def _eq(self: Any, other: object) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented  # type: ignore[no-any-return]
    return bool(_values(self) == _values(other))


def _hash(self: Any) -> int:
    return hash(_values(self))


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenRecordError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenRecordError(f"cannot delete field {name!r}")


def _slotted(cls: type, names: tuple[str, ...]) -> type:
    """``cls`` made again with ``__slots__`` for the fields it does not inherit (slots cannot be added later)."""
    namespace = {k: v for k, v in cls.__dict__.items() if k not in names and k not in ("__dict__", "__weakref__")}
    inherited = {name for base in cls.__mro__[1:] for name in getattr(base, "__slots__", ())}
    namespace["__slots__"] = tuple(name for name in names if name not in inherited)
    made = type(cls)(cls.__name__, cls.__bases__, namespace)
    made.__qualname__ = cls.__qualname__
    return made


def _build(cls: C, frozen: bool, eq: bool, slots: bool) -> C:
    spec = _fields_of(cls)
    for name, default in spec.items():
        if isinstance(default, _Factory) and name in cls.__dict__:
            delattr(cls, name)  # the factory is called per instance, it is no class attribute
    if slots:
        cls = _slotted(cls, tuple(spec))  # type: ignore[assignment]
    methods: dict[str, Any] = {"__init__": _make_init(cls, spec), "__repr__": _repr, "__match_args__": tuple(spec)}
    if eq:
        methods["__eq__"] = _eq
        if frozen:
            methods["__hash__"] = _hash
        elif "__hash__" not in cls.__dict__:
            methods["__hash__"] = None
    if frozen:
        methods["__setattr__"] = _frozen_setattr
        methods["__delattr__"] = _frozen_delattr
    for name, value in methods.items():
        if name in ("__repr__", "__eq__") and name in cls.__dict__:
            continue  # the class's own method wins, as with dataclasses
        setattr(cls, name, value)
    setattr(cls, _FIELDS, spec)
    return cls


@overload
def record(cls: C, /) -> C: ...
@overload
def record(*, frozen: bool = False, eq: bool = True, slots: bool = False) -> Callable[[C], C]: ...


@dataclass_transform(field_specifiers=(field,))
def record(
    cls: C | None = None, /, *, frozen: bool = False, eq: bool = True, slots: bool = False
) -> C | Callable[[C], C]:
    """Make ``cls`` a record (``@record`` or ``@record(frozen=True, eq=..., slots=...)``)."""
    if cls is not None:
        return _build(cls, False, True, False)
    return lambda target: _build(target, frozen, eq, slots)


def fields(obj: object) -> tuple[str, ...]:
    """The field names of a record class or instance, in order."""
    return tuple(getattr(obj, _FIELDS))


def replace(obj: T, /, **changes: Any) -> T:
    """A new record of ``obj``'s class with ``obj``'s fields, ``changes`` applied (``__post_init__`` runs)."""
    values = [changes.pop(name) if name in changes else getattr(obj, name) for name in getattr(obj, _FIELDS)]
    if changes:
        raise TypeError(f"{type(obj).__name__}() got an unexpected keyword argument {next(iter(changes))!r}")
    return type(obj)(*values)


def asdict(obj: object) -> dict[str, Any]:
    """The record ``obj`` as a dict, every record in it turned into a dict too (through lists, tuples, dicts)."""
    return {name: _plain(getattr(obj, name)) for name in getattr(obj, _FIELDS)}


def _plain(obj: Any) -> Any:
    if hasattr(type(obj), _FIELDS):
        return asdict(obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_plain(item) for item in obj)
    if isinstance(obj, dict):
        return {_plain(key): _plain(value) for key, value in obj.items()}
    return obj
