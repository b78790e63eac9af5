"""Sphinx configuration of the API reference of ``elydora_config``, built from the docstrings.

Build it (docs/README.md): ``pip install -e ".[docs]"`` then
``sphinx-build -W -n --keep-going -b html docs/api <output directory>``. ``-n`` makes every cross-reference that
resolves nowhere a warning and ``-W`` makes any warning (a broken reference, a malformed docstring, a public name
left out) fail the build, which is how ``.ci/run`` builds it.

Two pages: ``index.rst`` documents the package and every name of ``elydora_config.__all__`` as it is imported
(``elydora_config.Transaction``); ``modules.rst`` documents each public module (no part of its name starts with
``_``) and the names defined there, except those already documented on the first page. Each object is described
once, and a reference to it by any name it is reachable under (the module it is defined in, a name a module
imported it as) leads to that description: see :func:`resolve_elsewhere`.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import pkgutil
import sys
from types import ModuleType
from typing import Any, TypeVar

from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

import elydora_config

project = "elydora-config"
release = version = importlib.metadata.version("elydora-config")
extensions = ["sphinx.ext.autodoc"]
nitpicky = True
autodoc_member_order = "bysource"
autodoc_preserve_defaults = True
add_module_names = False
python_use_unqualified_type_names = True
html_theme = "alabaster"
html_title = f"elydora_config {release}"
html_show_sourcelink = False
html_copy_source = False

PACKAGE = "elydora_config"
_LOG = logging.getLogger(__name__)
_NOTHING = object()
_SCALARS = (int, float, str, bytes, bool, type(None))


def exported() -> dict[str, Any]:
    """Every name of ``elydora_config.__all__`` with its object (reading each binds any the package loads lazily)."""
    return {name: getattr(elydora_config, name) for name in elydora_config.__all__}


def public_modules() -> list[str]:
    """The package's modules whose dotted names have no part starting with ``_``, the package itself first (each
    imported, so that autodoc and the cross-reference lookup find it loaded)."""
    found = [PACKAGE]
    for info in pkgutil.walk_packages(elydora_config.__path__, PACKAGE + "."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            importlib.import_module(info.name)
            found.append(info.name)
    return found


exported()  # before autodoc reads the package


class PublicModules(SphinxDirective):
    """``.. public-modules::``: a section per public module below the package, with its public names: those of its
    ``__all__`` (a package such as ``elydora_config.jsonc`` exports names its private modules define), else those
    it defines. The names the package itself exports are left to the first page."""

    def run(self) -> list[nodes.Node]:
        top = exported()
        lines: list[str] = []
        for name in public_modules()[1:]:
            module = sys.modules[name]
            lines += [f"``{name}``", "-" * (len(name) + 4), "", f".. automodule:: {name}", ""]
            for member, value in _public_members(module):
                if top.get(member, _NOTHING) is value:
                    continue
                lines += _describe(name, member, value)
        holder = nodes.section()
        nested_parse_with_titles(self.state, StringList(lines, source="public-modules"), holder)
        return holder.children


def _public_members(module: ModuleType) -> list[tuple[str, object]]:
    """The names a module offers, in order: its ``__all__``, else the public names it defines itself."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, v in vars(module).items() if not n.startswith("_") and _home(v) == module.__name__]
    return [(n, getattr(module, n)) for n in names if not isinstance(getattr(module, n), ModuleType)]


def _describe(module: str, name: str, value: object) -> list[str]:
    """The directive lines describing ``module.name``: autodoc for a class or function, ``py:data`` with the
    attribute docstring of the module that defines it for anything else."""
    if isinstance(value, type):
        return [f".. autoclass:: {module}.{name}", "   :members:", ""]
    if callable(value):
        return [f".. autofunction:: {module}.{name}", ""]
    docstring = _attribute_docstring(name, value)
    if not docstring:
        _LOG.warning("%s.%s: no attribute docstring where it is defined", module, name)
    lines = [f".. py:data:: {name}", f"   :module: {module}", ""]
    return lines + [f"   {line}" for line in docstring] + [""]


class ExportedConstants(SphinxDirective):
    """``.. exported-constants::``: each exported name that is neither a class nor a function, with the attribute
    docstring of the module that defines it. autodoc reads such docstrings only from the source of the module it
    documents, and the package merely imports these names; one the package describes itself is left to autodoc."""

    def run(self) -> list[nodes.Node]:
        own = ModuleAnalyzer.for_module(PACKAGE).find_attr_docs()
        lines: list[str] = []
        for name, value in exported().items():
            if callable(value) or isinstance(value, ModuleType) or ("", name) in own:
                continue
            docstring = _attribute_docstring(name, value)
            if not docstring:
                _LOG.warning("elydora_config.%s: no attribute docstring where it is defined", name)
            lines += [f".. py:data:: {name}", f"   :module: {PACKAGE}", f"   :value: {value!r}", ""]
            lines += [f"   {line}" for line in docstring] + [""]
        holder = nodes.section()
        nested_parse_with_titles(self.state, StringList(lines, source="exported-constants"), holder)
        return holder.children


def _attribute_docstring(name: str, value: object) -> list[str]:
    """The docstring below ``name = ...`` in the module of the package (public or private) that binds ``name`` to
    ``value`` with one."""
    loaded = sorted(module for module in sys.modules if module.startswith(PACKAGE + "."))
    for module_name in loaded:
        if vars(sys.modules[module_name]).get(name, _NOTHING) is value:
            docstring = ModuleAnalyzer.for_module(module_name).find_attr_docs().get(("", name))
            if docstring:
                return list(docstring)
    return []


def _find(dotted: str) -> object:
    """The object a dotted name leads to among the modules already imported, or ``_NOTHING``."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = sys.modules.get(".".join(parts[:cut]))
        if module is None:
            continue
        value: object = module
        for part in parts[cut:]:
            value = getattr(value, part, _NOTHING)
            if value is _NOTHING:
                return _NOTHING
        return value
    return _NOTHING


def _home(value: object) -> str:
    """The module an object belongs to (its own name for a module)."""
    if isinstance(value, ModuleType):
        return value.__name__
    return str(getattr(value, "__module__", "") or "")


def _ours(value: object) -> bool:
    home = _home(value)
    return home == PACKAGE or home.startswith(PACKAGE + ".")


@functools.cache
def _documented(env: BuildEnvironment) -> dict[int, str]:
    """``id`` of every documented object (not plain scalars, which many names can share) -> its documented name.
    Asked once all pages are read, when references are resolved."""
    domain: Any = env.get_domain("py")
    names = list(domain.objects) + list(domain.modules)
    found: dict[int, str] = {}
    for name in names:
        value = _find(name)
        if value is not _NOTHING and not isinstance(value, _SCALARS):
            found.setdefault(id(value), name)
    return found


def resolve_elsewhere(app: Sphinx, env: BuildEnvironment, node: addnodes.pending_xref,
                      contnode: nodes.TextElement) -> nodes.Node | None:
    """A Python reference the reference has no entry for under that name: link it where its object is described.

    The target is looked up from the docstring's class, its module, then each package above (``.files`` from
    ``elydora_config.recovery`` is ``elydora_config.files``), then as a full name: a name a module imported, a
    class by the module it is defined in. Then, in order: an object described under another name is
    linked there; an object outside this package (the standard library, a dependency), a type variable or a
    private name (a part starting with ``_``) is shown as plain text, not linked, since the build is offline and
    the reference covers only the public API. A name found nowhere is plain text when it starts with a
    standard-library module's name; when it exists only for type checkers (imported under ``TYPE_CHECKING``) it
    is linked if exactly one described object bears it, and shown as plain text in a signature otherwise.
    Anything else stays unresolved, and ``-n -W`` fails the build on it.
    """
    if node.get("refdomain") != "py":
        return None
    target = str(node["reftarget"]).lstrip(".")
    module, cls = node.get("py:module"), node.get("py:class")
    candidates = [f"{module}.{cls}.{target}"] if module and cls else []
    packages = module.split(".") if module else []
    candidates += [".".join([*packages[:cut], target]) for cut in range(len(packages), 0, -1)]
    candidates.append(target)
    value = next((v for v in map(_find, candidates) if v is not _NOTHING), _NOTHING)
    domain: Any = env.get_domain("py")
    if value is not _NOTHING:
        name = _documented(env).get(id(value))
        if name is not None:
            return _link(app, env, name, node, contnode)
        named = [*target.split("."), *str(getattr(value, "__qualname__", "")).split(".")]
        private = any(part.startswith("_") for part in named)
        if not _ours(value) or isinstance(value, TypeVar) or private:
            return contnode
        return None
    if target.split(".")[0] in sys.stdlib_module_names:  # a standard-library module not loaded in this build
        return contnode
    suffix = "." + target.split(".")[-1]
    same_name = [n for n in list(domain.objects) + list(domain.modules) if n.endswith(suffix)]
    if len(same_name) == 1:
        return _link(app, env, same_name[0], node, contnode)
    return contnode if _in_signature(node) else None


def _in_signature(node: nodes.Node) -> bool:
    parent = node.parent
    while parent is not None and not isinstance(parent, addnodes.desc_signature):
        parent = parent.parent
    return parent is not None


def _link(app: Sphinx, env: BuildEnvironment, name: str, node: addnodes.pending_xref,
          contnode: nodes.TextElement) -> nodes.Node | None:
    domain: Any = env.get_domain("py")
    found = domain.resolve_any_xref(env, node["refdoc"], app.builder, name, node, contnode)
    return found[0][1] if found else None


def check_coverage(app: Sphinx, env: BuildEnvironment) -> None:
    """Every exported name and every public module is described (a warning, so ``-W`` fails the build)."""
    domain: Any = env.get_domain("py")
    for name in exported():
        if f"{PACKAGE}.{name}" not in domain.objects:
            _LOG.warning("elydora_config.%s is exported but not in the API reference", name)
    for name in public_modules():
        if name not in domain.modules:
            _LOG.warning("the public module %s is not in the API reference", name)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("public-modules", PublicModules)
    app.add_directive("exported-constants", ExportedConstants)
    app.connect("missing-reference", resolve_elsewhere)
    app.connect("env-check-consistency", check_coverage)
    return {"parallel_read_safe": False}
