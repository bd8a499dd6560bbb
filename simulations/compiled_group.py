"""A group of an engine package's modules compiled with mypyc beside the compiled model.

`python -m simulations compile` compiles each engine group (the explorer's inner loop, the DES's
world and components) into `<package>/_native/`, stamped with a digest of the model's sources
and the group's own: a group's build calls into the compiled model directly, so it is used only
while the compiled model is in use and both are exactly the sources it was made from.
Otherwise the group's modules load from source, with the same results (tests/test_compiled.py
compares). The package's `__init__` calls `load(__path__)`, which puts the build first on
its search path.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import List, Optional, Tuple

from model import COMPILED as MODEL_COMPILED
from model import native as model_native

MODEL_DIR = os.path.dirname(os.path.abspath(model_native.__file__))


@dataclass(frozen=True)
class CompiledGroup:
    """`modules` of the package at `package_dir`, compiled as mypyc group `group`."""
    package_dir: str
    modules: Tuple[str, ...]
    group: str

    @property
    def build_dir(self) -> str:
        return os.path.join(self.package_dir, model_native.NATIVE_DIR)

    @property
    def extensions(self) -> List[str]:
        """The extension modules a complete build holds (the group's shared library too)."""
        return list(self.modules) + [model_native.SHARED_LIBRARY]

    def digest(self) -> str:
        """sha256 over the model's source digest and the group's module sources."""
        digest = hashlib.sha256(model_native.source_digest(MODEL_DIR).encode())
        for name in self.modules:
            with open(os.path.join(self.package_dir, name + ".py"), "rb") as source:
                digest.update(name.encode() + b"\0" + source.read() + b"\0")
        return digest.hexdigest()

    def usable(self) -> Tuple[Optional[str], str]:
        """(the build directory if it holds a complete build of today's sources, or None;
        why), whether or not the model loads compiled in this process."""
        return model_native.usable_build(self.build_dir, self.digest(), self.extensions)

    def native_dir(self) -> Tuple[Optional[str], str]:
        """(directory of a compiled build of the group usable now, or None; why)."""
        if not MODEL_COMPILED:
            return None, "Python sources (the model runs from source)"
        return self.usable()

    def load(self, package_path: List[str]) -> Tuple[bool, str]:
        """Put a usable build first on the package's search path `package_path` (its
        `__path__`), so the group's modules import compiled; (whether they will, why)."""
        build_dir, why = self.native_dir()
        if build_dir is not None:
            package_path.insert(0, build_dir)
        return build_dir is not None, why
