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

import model  # noqa: E402
from model import POLICIES  # noqa: E402
from optimisation_support import reduced_cells  # noqa: E402
from simulations.des import config as des_config  # noqa: E402
from simulations.des.runner import run_replication  # noqa: E402
from simulations.incidents import record  # noqa: E402
from simulations.scenarios import SCENARIOS  # noqa: E402
from simulations.script import run_script  # noqa: E402
from simulations.verify.cell import execute_cell  # noqa: E402


def snapshot(scratch: Path) -> dict:
    space, cells = reduced_cells(scratch)
    explored = []
    for cell in cells:
        found = execute_cell(cell["policy"], cell["scope"], space.max_states)
        found.pop("seconds")
        explored.append(found)
    incidents = [record(run_script(s, p)) for s in SCENARIOS.values() for p in POLICIES]
    des = []
    for policy in ("naive", "strict", "sdk"):
        config = des_config.load(ROOT / "simulations/configs/rolling_restart.toml",
                                 ["timing.duration=1200"], replications=2, policies=[policy],
                                 baseline=policy)
        for r in range(2):
            out = run_replication(config, policy, r)
            out.pop("cpu_seconds")
            des.append(out)
    return {"compiled": model.COMPILED, "state_module": Path(model.state.__file__).suffix,
            "cells": explored, "incidents": incidents, "des": des}


if __name__ == "__main__":
    print(json.dumps(snapshot(Path(sys.argv[1])), sort_keys=True))
