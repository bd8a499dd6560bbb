"""The discrete-event engine: SimPy processes that schedule the model's transitions in time.

Its hot loop (world.py, components.py, servers.py, streams.py) loads compiled when a current
build exists beside the compiled model (simulations/des/native.py); `BUILD` says which.
"""
from .native import DES as _DES

_build_dir, BUILD = _DES.native_dir()
COMPILED = _build_dir is not None
if _build_dir is not None:
    __path__.insert(0, _build_dir)  # noqa: F821 (the package's search path)
