"""Where the explorer's inner loop loads from: a compiled build beside the model's, or source.

`python -m simulations compile` compiles `ENGINE_MODULES` (the breadth-first search, its budget
bookkeeping, its compact columns and fingerprint index, the liveness bookkeeping and the
transitions searches share, which run once per transition) with mypyc in a group of their own into
`simulations/explore/_native/` (see simulations/compiled_group.py for when a build is used).
"""
from __future__ import annotations

import os

from ..compiled_group import CompiledGroup

#: the explorer's modules the compiled build holds
ENGINE_MODULES = ("budgets", "columns", "findings", "fingerprint_index", "frontier", "interning",
                  "liveness", "shared")
ENGINE = CompiledGroup(os.path.dirname(os.path.abspath(__file__)), ENGINE_MODULES,
                       "simulations.explore._native")
