"""The discrete-event engine: SimPy processes that schedule the model's transitions in time.

Its hot loop (world.py, components.py, faults.py, footprint.py, servers.py, streams.py,
seeding.py) loads compiled when a current build exists beside the compiled model
(simulations/des/native.py); `BUILD` says which.
"""
from .native import DES as _DES

COMPILED, BUILD = _DES.load(__path__)  # noqa: F821 (the package's search path)
