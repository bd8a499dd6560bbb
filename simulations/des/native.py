"""Where the DES's hot loop loads from: a compiled build beside the model's, or source.

`python -m simulations compile` compiles `DES_MODULES` (the world every component applies
through, the SimPy components of both sides, their random streams and the streams' seeds, and
the footprint sampler, which run once per event or sample) with mypyc in a group of their own
into `simulations/des/_native/` (see simulations/compiled_group.py for when a build is used).
The configuration, runner and statistics stay Python.
"""
from __future__ import annotations

import os

from ..compiled_group import CompiledGroup

#: the DES's modules the compiled build holds
DES_MODULES = ("components", "faults", "footprint", "seeding", "servers", "streams", "world")
DES = CompiledGroup(os.path.dirname(os.path.abspath(__file__)), DES_MODULES,
                    "simulations.des._native")
