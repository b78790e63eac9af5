"""Record classes that cost nothing to define: what ``@dataclasses.dataclass`` gives, without compiling code.

``@dataclass`` writes the source of ``__init__``, ``__repr__``, ``__eq__`` (and, frozen, ``__setattr__``,
``__delattr__``, ``__hash__``) for every class and compiles it when the module is imported: about a
millisecond per class, and importing :mod:`dataclasses` brings :mod:`inspect` and :mod:`ast`. A command
that only reads (``elydora status``) defines some fifty such classes and uses a few of their instances, so
that cost was most of its start-up. :func:`record` builds the same methods from closures over the field
list instead. A class's first :data:`PROMOTE_AFTER` instances go through the generic ``__init__``; after
that a generated one (as fast as the dataclass one) replaces it, so classes made by the million (editor
spans) pay the compile once, and classes made a few times never do.

Supported: annotated fields in order (inherited from record bases), plain defaults and
``field(default_factory=...)``, ``frozen``, ``eq`` (``__hash__`` from the fields when frozen, none when
mutable, as with dataclasses), ``slots``, ``__post_init__``. :func:`replace`, :func:`asdict`, :func:`fields`
are the module's own; ``dataclasses.replace``, ``dataclasses.fields`` and ``dataclasses.is_dataclass`` work
too (``__dataclass_fields__`` is computed on first use).
"""

from __future__ import annotations

from collections.abc import Callable

from .typecheck import TYPE_CHECKING, overload

if TYPE_CHECKING:
    from typing import Any, TypeVar

    from typing_extensions import dataclass_transform

    T = TypeVar("T")
    C = TypeVar("C", bound=type)
else:
    def dataclass_transform(**_kwargs: Any) -> Callable[[Any], Any]:
        """At run time a no-op: the marker tells type checkers that :func:`record` makes dataclass-like
        classes (PEP 681)."""
        return lambda function: function

__all__ = ["PROMOTE_AFTER", "FrozenRecordError", "asdict", "field", "fields", "record", "replace"]

PROMOTE_AFTER = 256
"""Instances a class makes through the generic ``__init__`` before a generated one replaces it. A status
makes at most about two hundred of one class (the reads of twenty agents): at 64, compiling three
``__init__`` cost it more than they saved; an install's or an editor's thousands still get theirs."""

_FIELDS = "__record_fields__"
_LAYOUT = "__record_layout__"


class FrozenRecordError(AttributeError):
    """Assignment to a field of a frozen record (an ``AttributeError``, as ``dataclasses.FrozenInstanceError``)."""


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], T]) -> T:
    """A field whose default is ``default_factory()``, called for each instance."""
    return _Factory(default_factory)  # type: ignore[return-value]


def _is_classvar(annotation: object) -> bool:
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", repr(annotation))
    return str(text).split("[", 1)[0].rsplit(".", 1)[-1] == "ClassVar"


def _annotations(cls: type) -> dict[str, object]:
    """``cls``'s own annotations, read without :mod:`inspect` (whose import is what this module avoids). The
    modules using records have ``from __future__ import annotations``, so they are strings on every version."""
    own: dict[str, object] = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 - inspect is too dear
    return own


def _own_fields(cls: type) -> dict[str, object]:
    """``cls``'s annotated fields (name -> default, or ``_NONE``), its record bases' first."""
    found: dict[str, object] = {}
    for base in reversed(cls.__mro__[1:]):
        found.update(base.__dict__.get(_FIELDS, {}))
    for name, annotation in _annotations(cls).items():
        if not _is_classvar(annotation):
            found[name] = cls.__dict__.get(name, _NONE)
    return found


_NONE: Any = object()


class _Layout:
    """What the generated methods of one class need: field names, defaults, and the options."""

    __slots__ = ("cls", "defaults", "frozen", "made", "names", "post_init", "slots")

    def __init__(self, cls: type, spec: dict[str, object], frozen: bool, slots: bool = False) -> None:
        self.cls = cls
        self.names = tuple(spec)
        self.defaults = spec
        self.frozen = frozen
        self.slots = slots
        self.post_init = hasattr(cls, "__post_init__")
        self.made = 0

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        names = self.names
        if len(args) > len(names):
            raise TypeError(f"{self.cls.__name__}() takes {len(names)} positional arguments but {len(args)} were given")
        values = list(args)
        for name in names[len(args):]:
            if name in kwargs:
                values.append(kwargs.pop(name))
                continue
            default = self.defaults[name]
            if default is _NONE:
                raise TypeError(f"{self.cls.__name__}() missing required argument: {name!r}")
            values.append(default.make() if isinstance(default, _Factory) else default)
        if kwargs:
            name = next(iter(kwargs))
            what = "got multiple values for argument" if name in names else "got an unexpected keyword argument"
            raise TypeError(f"{self.cls.__name__}() {what} {name!r}")
        return values

    def promote(self) -> None:
        """Replace the generic ``__init__`` with a generated one (the class is now made often)."""
        params, body, env = [], [], {"_factory": _Factory, "_set": object.__setattr__}
        for index, name in enumerate(self.names):
            default = self.defaults[name]
            if default is _NONE:
                params.append(name)
            elif isinstance(default, _Factory):
                env[f"_d{index}"] = default.make
                params.append(f"{name}=_factory")
                body.append(f"  if {name} is _factory: {name} = _d{index}()")
            else:
                env[f"_d{index}"] = default
                params.append(f"{name}=_d{index}")
            body.append(f"  _set(self, {name!r}, {name})" if self.frozen else f"  self.{name} = {name}")
        if self.post_init:
            body.append("  self.__post_init__()")
        source = f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) or "  pass") + "\n"
        namespace: dict[str, Any] = {}
        exec(source, env, namespace)
        init = namespace["__init__"]
        init.__qualname__ = f"{self.cls.__qualname__}.__init__"
        self.cls.__init__ = init  # type: ignore[misc]


def _make_init(layout: _Layout) -> Callable[..., None]:
    set_field = object.__setattr__
    names, slots = layout.names, layout.slots

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        values = args if not kwargs and len(args) == len(names) else layout.bind(args, kwargs)
        if slots:
            for name, value in zip(names, values, strict=True):
                set_field(self, name, value)
        else:  # the instance's dict, as ``object.__setattr__`` would fill it, in one step
            self.__dict__.update(zip(names, values, strict=True))
        if layout.post_init:
            self.__post_init__()
        layout.made += 1
        if layout.made == PROMOTE_AFTER and type(self) is layout.cls:
            layout.promote()

    return __init__


def _values(self: Any, names: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(getattr(self, name) for name in names)


def _make_methods(layout: _Layout, eq: bool) -> dict[str, Any]:
    names = layout.names

    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{type(self).__qualname__}({inner})"

    methods: dict[str, Any] = {"__init__": _make_init(layout), "__repr__": __repr__, "__match_args__": names}
    if eq:
        def __eq__(self: Any, other: object) -> bool:
            if other.__class__ is not self.__class__:
                return NotImplemented
            return _values(self, names) == _values(other, names)

        methods["__eq__"] = __eq__
        if layout.frozen:
            methods["__hash__"] = lambda self: hash(_values(self, names))
        elif "__hash__" not in layout.cls.__dict__:
            methods["__hash__"] = None
    if layout.frozen:
        def __setattr__(self: Any, name: str, value: Any) -> None:
            raise FrozenRecordError(f"cannot assign to field {name!r}")

        def __delattr__(self: Any, name: str) -> None:
            raise FrozenRecordError(f"cannot delete field {name!r}")

        methods["__setattr__"] = __setattr__
        methods["__delattr__"] = __delattr__
    return methods


class _DataclassFields:
    """``__dataclass_fields__`` on demand, so the standard library's ``replace``/``fields`` accept records."""

    def __get__(self, instance: object, owner: type) -> dict[str, Any]:
        import dataclasses

        found: dict[str, Any] = {}
        for name in owner.__dict__.get(_FIELDS) or getattr(owner, _FIELDS):
            made = dataclasses.field()
            made.name = name
            made._field_type = dataclasses._FIELD  # type: ignore[attr-defined]
            found[name] = made
        return found


def _slotted(cls: type, names: tuple[str, ...]) -> type:
    namespace = {k: v for k, v in cls.__dict__.items() if k not in names and k not in ("__dict__", "__weakref__")}
    inherited = {name for base in cls.__mro__[1:] for name in getattr(base, "__slots__", ())}
    namespace["__slots__"] = tuple(name for name in names if name not in inherited)
    made = type(cls)(cls.__name__, cls.__bases__, namespace)
    made.__qualname__ = cls.__qualname__
    return made


def _build(cls: C, frozen: bool, eq: bool, slots: bool) -> C:
    spec = _own_fields(cls)
    for name in _annotations(cls):
        if name in spec and isinstance(cls.__dict__.get(name), _Factory):
            delattr(cls, name)  # the factory lives in the layout, not as a class attribute
    if slots:
        cls = _slotted(cls, tuple(spec))  # type: ignore[assignment]
    layout = _Layout(cls, spec, frozen, slots)
    for name, value in _make_methods(layout, eq).items():
        if name in ("__repr__", "__eq__") and name in cls.__dict__:
            continue  # the class's own method wins, as with dataclasses
        setattr(cls, name, value)
    setattr(cls, _FIELDS, spec)
    setattr(cls, _LAYOUT, layout)
    cls.__dataclass_fields__ = _DataclassFields()  # type: ignore[attr-defined]
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
    """A copy of the record ``obj`` with ``changes`` applied (``__post_init__`` runs again).

    A record with neither ``__post_init__`` nor slots is copied field by field without its ``__init__``
    (a context is copied a few times per agent and operation); the others are made by their ``__init__``."""
    layout: _Layout | None = getattr(type(obj), _LAYOUT, None)
    if layout is None or layout.cls is not type(obj) or layout.post_init or not hasattr(obj, "__dict__"):
        for name in getattr(obj, _FIELDS):
            if name not in changes:
                changes[name] = getattr(obj, name)
        return type(obj)(**changes)
    unexpected = next((name for name in changes if name not in layout.defaults), None)
    if unexpected is not None:
        raise TypeError(f"{layout.cls.__name__}() got an unexpected keyword argument {unexpected!r}")
    made: T = object.__new__(layout.cls)
    values, kept = made.__dict__, obj.__dict__
    for name in layout.names:
        values[name] = changes[name] if name in changes else kept[name] if name in kept else getattr(obj, name)
    return made


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
