"""Where `model`'s modules are loaded from: a compiled build, or the Python sources.

`python -m simulations compile` compiles the model's modules with mypyc into `model/_native/`
and writes there a digest of the exact sources it compiled. `model/__init__.py` puts that
directory first on the package's search path only when the digest matches today's sources
and every compiled module is there for this interpreter; otherwise every module loads from
source. So a stale build (a source edited since) or a missing compiler never changes a result,
it only costs speed. Both ways give the same states, verdicts, traces and DES records (a test
compares them).

`MCP_MODEL_PURE=1` in the environment forces the Python sources.

This file is the model's one contact with the file system, and only to choose where its own
code comes from; it is never compiled.
"""
from __future__ import annotations

import hashlib
import os
from importlib.machinery import EXTENSION_SUFFIXES
from typing import List, Optional, Tuple

PURE_ENV = "MCP_MODEL_PURE"
NATIVE_DIR = "_native"
DIGEST_FILE = "SOURCES.sha256"
#: the shared library every compiled module's stub loads (mypyc's group of modules)
GROUP = "model._native"
SHARED_LIBRARY = "_native__mypyc"
#: modules that stay Python: the package's entry, this chooser, and codes.py (its `str, Enum`
#: classes are beyond what mypyc compiles)
NOT_COMPILED = ("__init__.py", "native.py", "codes.py")


def compiled_modules(package_dir: str) -> List[str]:
    """The module names (without .py) that the compiled build holds, sorted."""
    return sorted(name[:-3] for name in os.listdir(package_dir)
                  if name.endswith(".py") and name not in NOT_COMPILED)


def source_digest(package_dir: str) -> str:
    """sha256 over the name and bytes of every module source in the package: any edit, added
    or removed module changes it."""
    digest = hashlib.sha256()
    for name in sorted(n for n in os.listdir(package_dir) if n.endswith(".py")):
        with open(os.path.join(package_dir, name), "rb") as source:
            digest.update(name.encode() + b"\0" + source.read() + b"\0")
    return digest.hexdigest()


def usable_build(build: str, digest: str, modules: List[str]) -> Tuple[Optional[str], str]:
    """(`build`, "compiled (mypyc)") when the directory holds a build stamped with `digest`
    and every one of `modules` (extension names without suffix) for this interpreter; else
    (None, why the sources are used)."""
    try:
        with open(os.path.join(build, DIGEST_FILE)) as stamp:
            built_from = stamp.read().strip()
    except OSError:
        return None, "Python sources (no compiled build: python -m simulations compile)"
    if built_from != digest:
        return None, ("Python sources (the compiled build is stale, the sources changed "
                      "since: python -m simulations compile)")
    suffix = EXTENSION_SUFFIXES[0]
    missing = [m for m in modules if not os.path.exists(os.path.join(build, m + suffix))]
    if missing:
        return None, (f"Python sources (the compiled build lacks {', '.join(missing)} for this "
                      f"interpreter: python -m simulations compile)")
    return build, "compiled (mypyc)"


def native_dir(package_dir: str, honour_env: bool = True) -> Tuple[Optional[str], str]:
    """(directory of a compiled build usable for these sources, or None; why)."""
    if honour_env and os.environ.get(PURE_ENV, "").strip() not in ("", "0"):
        return None, f"Python sources ({PURE_ENV} is set)"
    return usable_build(os.path.join(package_dir, NATIVE_DIR), source_digest(package_dir),
                        compiled_modules(package_dir) + [SHARED_LIBRARY])
