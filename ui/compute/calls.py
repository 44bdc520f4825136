"""How a cached call is named: its function's name, its arguments' key, and which call a result came from
(so that what a page derives from a result is keyed on the call, not on the result's contents)."""
from __future__ import annotations

import inspect
import threading
import weakref
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from ui.compute import chart_spec, result_cache

R = TypeVar("R")


def name(func: Callable[..., Any]) -> str:
    """A cached function's name across the process: file, qualified name and line."""
    # Every page script runs as __main__: the file tells two pages' `run` apart.
    code = func.__code__
    return f"{Path(code.co_filename).stem}.{func.__qualname__}:{code.co_firstlineno}"


def key(signature: inspect.Signature, args: tuple, kwargs: dict) -> Hashable:
    """The call's arguments by name, defaults filled in; as with st.cache_data, a parameter whose name
    starts with "_" is left out (an object the result does not depend on, or that cannot be a key)."""
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple((name, result_cache.plain_key(value)) for name, value in bound.arguments.items() if not name.startswith("_"))


# Which call each result handed out by cache.cached came from, while the page holds it: a frame built from a
# result is then keyed on that call instead of on the result's contents, which would cost as much to
# hash as to rebuild. Keyed by id, each entry dropped when its result is collected (ids are reused).
_ORIGINS: dict[int, Hashable] = {}
_ORIGINS_LOCK = threading.Lock()


def remember(result: R, origin: Hashable) -> R:
    """Hand `result` out, noting the call it came from while it lives."""
    try:
        ref = weakref.ref(result, lambda _r, i=id(result): _forget(i))
    except TypeError:  # tuples, dicts: derive() recomputes from these
        return result
    with _ORIGINS_LOCK:
        _ORIGINS[id(result)] = (ref, origin)
    return result


def _forget(ident: int) -> None:
    with _ORIGINS_LOCK:
        entry = _ORIGINS.get(ident)
        if entry is not None and entry[0]() is None:
            del _ORIGINS[ident]


def origin(result: object) -> Hashable | None:
    """The call a live result came from; None for one not handed out by `remember`."""
    with _ORIGINS_LOCK:
        entry = _ORIGINS.get(id(result))
    return entry[1] if entry is not None and entry[0]() is result else None


def derived_key(func: Callable[..., pd.DataFrame], args: tuple[Any, ...]) -> Hashable | None:
    """derive's key: the call the result came from, func, and the other arguments; None for a result of no
    known call."""
    # `func` is a result's method, or a function whose first argument is the result.
    if inspect.ismethod(func):
        result, plain, rest = func.__self__, func.__func__, args
    else:
        result, plain, rest = args[0], func, args[1:]
    came_from = origin(result)
    if came_from is None:
        return None
    return (name(plain), came_from, tuple(chart_spec.arg_key(a) for a in rest))
