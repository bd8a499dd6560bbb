"""Load a user's resumption gate from `package.module:function` (bring your own gate)."""
from __future__ import annotations

import importlib
from typing import Callable


class GateLoadError(ValueError):
    """The gate path does not import or does not name a callable; the message says which."""


def load_gate(path: str) -> Callable:
    """The callable named by `package.module:function` (dotted attributes allowed after ':')."""
    module_name, sep, attribute = path.partition(":")
    if not sep or not module_name or not attribute:
        raise GateLoadError(f"gate {path!r}: expected package.module:function")
    try:
        target = importlib.import_module(module_name)
    except Exception as exc:  # ImportError, or anything the module raises on import
        raise GateLoadError(f"gate {path!r}: cannot import {module_name!r} "
                            f"({type(exc).__name__}: {exc})") from exc
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise GateLoadError(f"gate {path!r}: {module_name!r} has no attribute {attribute!r}")
        target = getattr(target, part)
    if not callable(target):
        raise GateLoadError(f"gate {path!r}: {attribute!r} is a {type(target).__name__}, "
                            "not a callable")
    return target
