"""Lazy references: a plugin's callables and tool models named by ``"package.module:attribute"``.

A host starts the server for every session, so start-up should import declarations only. A
plugin's hook module declares its records with :func:`lazy` references into the modules that hold
the work (models, parsers, handlers); the first call imports them. Tool schemas for
``tools/list`` come from the schema store (:mod:`medlit.core.tool_schemas`) without importing.
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
_lock = threading.RLock()  # re-entrant: a module imported here may resolve another reference


class LazyError(Exception):
    """A lazy reference that does not name what its record needs (the plugin's bug)."""


T = TypeVar("T")


class Lazy(Generic[T]):
    """An object imported on first use. Calling it calls the target: an async target returns its
    coroutine, so a ``Lazy`` stands wherever a record takes a callable. The host records what the
    slot needs (``expect``: ``"async"``, ``"callable"`` or ``"model"``) and who declared it
    (``owner``), and the first resolution checks it, naming the plugin in the error. ``"sync"``
    slots are called inline (a render, a describe): an async target there is refused."""

    __slots__ = ("_target", "expect", "owner", "ref")

    def __init__(self, ref: str) -> None:
        self.ref = ref
        self.expect = "callable"
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
        loaded: T = obj
        return loaded

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        target: Any = self.resolve()
        return target(*args, **kwargs)

    def __repr__(self) -> str:
        return f"lazy({self.ref!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Lazy) and other.ref == self.ref

    def __hash__(self) -> int:
        return hash(self.ref)


def lazy(ref: str, package: str | None = None) -> Lazy[Any]:
    """``lazy("medlit.plugins.x.tool:Input")``, or relative to ``package`` (pass ``__name__``
    from a package's ``__init__``): ``lazy(".tool:Input", __name__)``. Nothing is imported until
    the first use; a malformed reference is refused at once. A :class:`Lazy` is callable, so it
    fits every callable slot of a record; model slots accept it by type (``type[BaseModel] |
    Lazy[type[BaseModel]]``), and no other field does."""
    if not isinstance(ref, str) or not _REF.match(ref):
        raise LazyError(f"lazy reference {ref!r} is not 'package.module:attribute'")
    module, _, attr = ref.partition(":")
    if module.startswith("."):
        if not package:
            raise LazyError(f"relative lazy reference {ref!r} needs the package it is relative to")
        module = importlib.util.resolve_name(module, package)
    return Lazy(f"{module}:{attr}")


def resolved(obj: T | Lazy[T]) -> T:
    """The object itself, or what a :class:`Lazy` names (imported now)."""
    return obj.resolve() if isinstance(obj, Lazy) else obj


def is_async(fn: Any) -> bool:
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
