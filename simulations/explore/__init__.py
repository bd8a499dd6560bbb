"""The interleaving explorer: every order of the model's transitions within a bounded scope.

Its inner loop (budgets.py, columns.py, frontier.py, liveness.py, shared.py) loads compiled when
a current build exists beside the compiled model (simulations/explore/native.py); `BUILD` says
which.
"""
from .native import ENGINE as _ENGINE

COMPILED, BUILD = _ENGINE.load(__path__)  # noqa: F821 (the package's search path)
