"""Run a verification space: one exploration per (gate, deployment) cell, on any executor.

Each cell has a content-addressed key (its gate, deployment, budgets, client, state budget, a
hash of the sources that compute it (`cell.RESULT_SOURCES`) and, for a user's gate, a hash of
its source). The parent writes every finished cell to `DIR/cells/<key>.json` through a
temporary file and a rename as it arrives, so a killed run loses at most the cells in flight and
the same command skips every finished cell. Cells run on local processes or a Dask cluster (the
sweep executors); the cell records do not depend on which.

The unfinished cells of one scope (a deployment with its budgets and client, under several
gates) run as one task that explores them together (`cell.execute_cells`: the searches share
every transition the gate does not decide, and a resumption's where their gates decide
alike); each cell's record is the one it gets alone.
"""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Dict, List, Optional

from ..explore.scope import Scope
from ..provenance import write_atomic
from ..runtime import cyclic_gc_paused
from ..sweep.execute import run_pending
from .cell import RESULT_SOURCES, execute_cell, execute_cells, gate_source, result_code_hash
from .space import Space, cell_scope, client_profile


def cell_key(gate: str, scope: Scope, max_states: int, code: str,
             source: Optional[str]) -> str:
    payload = json.dumps({"gate": gate, "scope": scope.as_dict(), "max_states": max_states,
                          "code": code, "gate_source": source}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


def plan(space: Space, out: Path, aliases: Optional[List[dict]] = None) -> List[dict]:
    """Every cell of the space, in order: gate-major, then deployment. Two deployments are one
    cell of a gate when the gate's scopes of them are the same (budgets it cannot spend, e.g.
    record expiries on a session, and a placement of records its transport does not keep, do
    not count): the first names it, and `aliases` (when given) gets each later one as
    {policy, block, deployment, scope, same_as: the cell's key}."""
    code = result_code_hash()
    sources = {gate: gate_source(gate) for gate in space.gates}
    cells = []
    planned = set()
    for gate in space.gates:
        for deployment in space.deployments:
            scope = cell_scope(deployment, gate, space.client)
            key = cell_key(gate, scope, space.max_states, code, sources[gate])
            if key in planned:
                if aliases is not None:
                    aliases.append({"policy": gate, "block": deployment.block,
                                    "deployment": deployment.key(), "scope": scope.as_dict(),
                                    "same_as": key})
                continue
            planned.add(key)
            cells.append({"key": key, "policy": gate, "block": deployment.block,
                          "client_profile": client_profile(gate, space.client),
                          "deployment": deployment.key(), "scope": scope.as_dict(),
                          "path": out / "cells" / f"{key}.json"})
    return cells


def _load(path: Path) -> Optional[dict]:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _with_plan(cell: dict) -> dict:
    """A finished cell's record, named as the plan names it (its block, deployment and
    scope): a cell file another space, or an earlier plan, wrote under another block of the
    same scope is the same result."""
    found = _load(cell["path"])
    assert found is not None    # every cell is finished when the records are read
    return found | {k: v for k, v in cell.items() if k != "path"}


def _execute(policies: List[str], scope: dict, max_states: int) -> List[dict]:
    """The cells of one scope in a worker (together when there are several), with the cyclic
    collector paused for the search."""
    with cyclic_gc_paused():
        if len(policies) == 1:
            return [execute_cell(policies[0], scope, max_states)]
        return execute_cells(policies, scope, max_states)


def by_scope(cells: List[dict], together: bool = True) -> List[List[dict]]:
    """The cells grouped by scope (in first-seen order); each on its own if not `together`."""
    if not together:
        return [[cell] for cell in cells]
    groups: Dict[str, List[dict]] = {}
    for cell in cells:
        groups.setdefault(json.dumps(cell["scope"], sort_keys=True), []).append(cell)
    return list(groups.values())


def run_space(space: Space, out: Path, workers: int = 1, scheduler: Optional[str] = None,
              progress: bool = True, together: bool = True) -> Dict[str, object]:
    """Run every unfinished cell, those of one scope together unless `together` is False;
    returns the cell records (in plan order), the (gate, deployment) pairs that are another's
    cell (`plan`'s aliases) and timings."""
    aliases: List[dict] = []
    cells = plan(space, out, aliases)
    todo = [c for c in cells if _load(c["path"]) is None]
    (out / "cells").mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    explored = [0.0]

    def keep(group: List[dict], founds: List[dict]) -> None:
        for cell, found in zip(group, founds):
            explored[0] += found["seconds"]
            record = {k: v for k, v in cell.items() if k != "path"} | found
            write_atomic(cell["path"], json.dumps(record, sort_keys=True))

    run_pending(by_scope(todo, together),
                lambda g: (_execute, [c["policy"] for c in g], g[0]["scope"], space.max_states),
                keep, workers, scheduler, len(cells), "cell", space.title, progress, size=len)
    return {"records": [_with_plan(c) for c in cells], "aliases": aliases, "cells": len(cells),
            "ran": len(todo), "skipped": len(cells) - len(todo),
            "code": {"result_sources": ", ".join(RESULT_SOURCES), "sha256": result_code_hash()},
            "wall_seconds": time.perf_counter() - start,
            "explore_seconds_of_ran_cells": explored[0],
            "workers": None if scheduler else workers, "scheduler": scheduler}
