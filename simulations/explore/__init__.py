"""The interleaving explorer: every order of the model's transitions within a bounded scope.

Its inner loop (budgets.py, columns.py, frontier.py, liveness.py, shared.py) loads compiled when
a current build exists beside the compiled model (simulations/explore/native.py); `BUILD` says
which.
"""
from .native import ENGINE as _ENGINE

_build_dir, BUILD = _ENGINE.native_dir()
COMPILED = _build_dir is not None
if _build_dir is not None:
    __path__.insert(0, _build_dir)  # noqa: F821 (the package's search path)
