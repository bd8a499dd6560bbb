"""Print, as JSON, everything the model computes in tests/test_compiled.py's comparison.

Run as a script in a child process (`python tests/compiled_snapshot.py`), once with the
compiled model and once with MCP_MODEL_PURE=1: cells of the reduced verification space (verdicts,
state counts, traces), the whole incident matrix and DES replications of three gates. CPU time is
left out; everything else must be equal.
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from optimisation_support import (  # noqa: E402
    DES_POLICIES,
    des_records,
    explored_cells,
    incident_records,
    reduced_cells,
)

import model  # noqa: E402
import simulations.des.world  # noqa: E402
import simulations.explore.frontier  # noqa: E402


def snapshot(scratch: Path) -> dict:
    space, cells = reduced_cells(scratch)
    return {"compiled": model.COMPILED, "state_module": Path(model.state.__file__).suffix,
            "frontier_module": Path(simulations.explore.frontier.__file__).suffix,
            "world_module": Path(simulations.des.world.__file__).suffix,
            "cells": explored_cells(space, cells), "incidents": incident_records(),
            "des": [r for policy in DES_POLICIES for r in des_records(policy)]}


if __name__ == "__main__":
    print(json.dumps(snapshot(Path(sys.argv[1])), sort_keys=True))
