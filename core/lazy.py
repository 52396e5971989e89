"""Lazy references: a plugin's callables and tool models, imported at their first use.

A host starts the server for every session, so start-up should import declarations only. A
plugin's hook module names the modules that hold the work (models, parsers, handlers) with
:func:`lazy_module`, typed as the real module for mypy, so every declared callable is checked
against its slot while nothing is imported at run time::

    if TYPE_CHECKING:
        from . import tool as _tool             # mypy: the real module, the real signatures
    else:
        _tool = lazy_module(".tool", __name__)  # run time: ``_tool.x`` is a Lazy reference

The private name keeps the package's ``tool`` attribute free for the real submodule: bound as
``tool``, the proxy would be what ``from package import tool`` finds (in a test, say).

:func:`lazy` names one object by a ``"package.module:attribute"`` string (unchecked by mypy). The
first call imports the module; tool schemas for ``tools/list`` come from the schema store
(:mod:`medlit.core.tool_schemas`) without importing.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import threading
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any, Generic, TypeVar

_REF = re.compile(r"^(\.*[A-Za-z_][\w.]*|\.+):[A-Za-z_][\w]*(\.[A-Za-z_]\w*)*$")
_MODULE = re.compile(r"^(\.*[A-Za-z_][\w.]*|\.+)$")
_lock = threading.RLock()  # re-entrant: a module imported here may resolve another reference


class LazyError(Exception):
    """A lazy reference that does not name what its record needs (the plugin's bug)."""


T = TypeVar("T")


class Lazy(Generic[T]):
    """An object imported on first use. Calling it calls the target: an async target returns its
    coroutine, so a ``Lazy`` stands wherever a record takes a callable. The host records what the
    slot needs (``expect``: ``"async"``, ``"callable"`` or ``"model"``; ``arity``: how many
    positional arguments the slot passes) and who declared it (``owner``), and the first
    resolution checks it, naming the plugin in the error. ``"sync"`` slots are called inline (a
    render, a describe): an async target there is refused. mypy checks a declaration made through
    :func:`lazy_module`; ``arity`` is the same check for one it never saw (a ``lazy("m:x")``
    string, a plugin not type-checked)."""

    __slots__ = ("_target", "arity", "expect", "owner", "ref")

    def __init__(self, ref: str) -> None:
        self.ref = ref
        self.expect = "callable"
        self.arity: int | None = None
        self.owner = ""
        self._target: T | None = None

    @property
    def loaded(self) -> bool:
        return self._target is not None

    def resolve(self) -> T:
        target = self._target
        if target is None:
            with _lock:  # two threads importing one module is safe; checking it once is tidier
                if self._target is None:
                    self._target = self._load()
                target = self._target
        assert target is not None
        return target

    def _load(self) -> T:
        module, _, attr = self.ref.partition(":")
        where = f"{self.owner}: " if self.owner else ""
        try:
            obj: Any = importlib.import_module(module)
            for part in attr.split("."):
                obj = getattr(obj, part)
        except (ImportError, AttributeError) as exc:
            raise LazyError(f"{where}{self.ref!r} cannot be loaded: {type(exc).__name__}: {exc}") from exc
        if self.expect == "model":
            from pydantic import BaseModel

            if not (isinstance(obj, type) and issubclass(obj, BaseModel)):
                raise LazyError(f"{where}{self.ref!r} is not a pydantic model")
        elif not callable(obj):
            raise LazyError(f"{where}{self.ref!r} is not callable")
        elif self.expect == "async" and not is_async(obj):
            raise LazyError(f"{where}{self.ref!r} is not an async function (declare it with `async def`)")
        elif self.expect == "sync" and is_async(obj):
            raise LazyError(
                f"{where}{self.ref!r} is async, but its slot is called inline: make it a plain def"
            )
        if self.expect != "model" and self.arity is not None:
            wrong = misfit(obj, self.arity)
            if wrong:
                raise LazyError(f"{where}{self.ref!r} {wrong}")
        loaded: T = obj
        return loaded

    # ``Any`` in: a Lazy made from a string fits any callable slot (that is what leaves it
    # unchecked); one from a lazy_module attribute is typed by mypy as the real callable instead.
    def __call__(self, *args: object, **kwargs: object) -> Any:
        target: Any = self.resolve()
        return target(*args, **kwargs)

    def __repr__(self) -> str:
        return f"lazy({self.ref!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Lazy) and other.ref == self.ref

    def __hash__(self) -> int:
        return hash(self.ref)


def lazy(ref: str, package: str | None = None) -> Lazy[Any]:
    """``lazy("medlit_acme.tool:Input")``, or relative to ``package`` (pass ``__name__``
    from a package's ``__init__``): ``lazy(".tool:Input", __name__)``. Nothing is imported until
    the first use; a malformed reference is refused at once. A :class:`Lazy` is callable, so it
    fits every callable slot of a record; model slots accept it by type (``type[I] |
    Lazy[type[I]]``), and no other field does. mypy cannot see through a string, so the target is
    checked against its slot only when it is imported (its async-ness and arity): prefer
    :func:`lazy_module`, which mypy checks."""
    if not isinstance(ref, str) or not _REF.match(ref):
        raise LazyError(f"lazy reference {ref!r} is not 'package.module:attribute'")
    module, _, attr = ref.partition(":")
    return Lazy(f"{_absolute(module, package, ref)}:{attr}")


def _absolute(module: str, package: str | None, ref: str) -> str:
    if not module.startswith("."):
        return module
    if not package:
        raise LazyError(f"relative lazy reference {ref!r} needs the package it is relative to")
    return importlib.util.resolve_name(module, package)


class LazyModule:
    """A module not imported yet: reading a public attribute gives a :class:`Lazy` reference to it
    (a new one each time, since the host stamps each with its own slot) and imports nothing. Made
    by :func:`lazy_module`; under ``TYPE_CHECKING`` the same name is the real module."""

    __slots__ = ("_module",)

    def __init__(self, module: str) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Lazy[object]:
        # Private and dunder names are probes (copy, pickle, inspect, pytest), never declarations:
        # answering them with a reference would import the module or mislead the prober.
        if name.startswith("_"):
            raise AttributeError(name)
        return Lazy(f"{self._module}:{name}")

    def __repr__(self) -> str:
        return f"lazy_module({self._module!r})"


def lazy_module(module: str, package: str | None = None) -> LazyModule:
    """``lazy_module(".tool", __name__)``: the module, imported at the first use of one of the
    references its attributes give (``_tool.search`` is ``lazy(".tool:search", __name__)``). Bind
    it to a private name in the ``else`` of ``if TYPE_CHECKING: from . import tool as _tool``, so
    mypy checks every record field given ``_tool.x`` against the real ``x``."""
    if not isinstance(module, str) or not _MODULE.match(module):
        raise LazyError(f"lazy module {module!r} is not 'package.module' or '.module'")
    return LazyModule(_absolute(module, package, module))


def misfit(fn: Callable[..., object], arity: int) -> str:
    """Why ``fn`` cannot be called with ``arity`` positional arguments (its slot's), or ``""``.
    A callable whose signature Python cannot read (some builtins) passes."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return ""
    try:
        signature.bind(*range(arity))
    except TypeError as exc:
        return f"takes {signature}, but its slot passes {arity} positional argument(s) ({exc})"
    return ""


def resolved(obj: T | Lazy[T]) -> T:
    """The object itself, or what a :class:`Lazy` names (imported now)."""
    return obj.resolve() if isinstance(obj, Lazy) else obj


def is_async(fn: object) -> bool:
    target = getattr(fn, "func", fn)  # functools.partial
    return inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(type(target).__call__)


def on_access(namespace: MutableMapping[str, Any], exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` (PEP 562) importing each name of ``exports`` (name -> module,
    absolute or relative to the module's package) on first access and keeping it in the module::

        __getattr__ = on_access(globals(), {"read_jats": ".jats.reader"})
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, namespace["__package__"]), name)
        namespace[name] = value
        return value

    return __getattr__
