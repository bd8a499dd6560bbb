"""Where the explorer's inner loop loads from: a compiled build beside the model's, or source.

`python -m simulations compile` compiles `ENGINE_MODULES` (the breadth-first search, its budget
bookkeeping, its compact columns, the liveness bookkeeping and the transitions searches share,
which run once per transition) with mypyc in a group
of their own, next to the model's group, into `simulations/explore/_native/`, stamped with a
digest of the model's sources and theirs: the build calls into the compiled model directly, so
it is used only while the compiled model is in use and both are exactly the sources it was
made from. Otherwise these modules load from source, with the same results
(tests/test_compiled.py compares).
"""
from __future__ import annotations

import hashlib
import os
from typing import List, Optional, Tuple

from model import COMPILED as MODEL_COMPILED
from model import native as model_native

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
MODEL_DIR = os.path.dirname(os.path.abspath(model_native.__file__))
#: the explorer's modules the compiled build holds
ENGINE_MODULES = ("budgets", "columns", "frontier", "liveness", "shared")
GROUP = "simulations.explore._native"


def engine_digest() -> str:
    """sha256 over the model's source digest and the engine modules' sources."""
    digest = hashlib.sha256(model_native.source_digest(MODEL_DIR).encode())
    for name in ENGINE_MODULES:
        with open(os.path.join(PACKAGE_DIR, name + ".py"), "rb") as source:
            digest.update(name.encode() + b"\0" + source.read() + b"\0")
    return digest.hexdigest()


def native_dir() -> Tuple[Optional[str], str]:
    """(directory of a compiled build of the engine modules usable now, or None; why)."""
    if not MODEL_COMPILED:
        return None, "Python sources (the model runs from source)"
    wanted: List[str] = list(ENGINE_MODULES) + [model_native.SHARED_LIBRARY]
    return model_native.usable_build(os.path.join(PACKAGE_DIR, model_native.NATIVE_DIR),
                                     engine_digest(), wanted)
