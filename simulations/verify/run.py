"""Run a verification space: one exploration per (gate, deployment) cell, on any executor.

Each cell has a content-addressed key (its gate, deployment, budgets, client, state budget, a
hash of the sources that compute it and, for a user's gate, a hash of its source). The parent writes every finished
cell to `DIR/cells/<key>.json` through a temporary file and a rename as it arrives, so a killed
run loses at most the cells in flight and the same command skips every finished cell. Cells run
on local processes or a Dask cluster (the sweep executors); the cell records do not depend on
which.
"""
from __future__ import annotations

import hashlib
import inspect
import json
import time
from concurrent.futures import as_completed
from pathlib import Path
from typing import Dict, List, Optional

from model import POLICIES, SystemConfig
from model.properties import BY_NAME

from ..explore.scope import Scope
from ..explore.search import explore
from ..gates import load_gate
from ..narrative import describe_action
from ..provenance import write_atomic
from ..sweep.execute import make_executor
from .space import Space, cell_scope, client_profile


def resolve(gate: str):
    """A policy name or a user's gate loaded from MODULE:FUNCTION."""
    return gate if gate in POLICIES else load_gate(gate)


def gate_source(gate: str) -> Optional[str]:
    """A hash of a user's gate's source (so editing it re-runs its cells); None for policies."""
    if gate in POLICIES:
        return None
    try:
        text = inspect.getsource(load_gate(gate))
    except (OSError, TypeError):
        text = gate
    return hashlib.sha256(text.encode()).hexdigest()[:16]


#: the sources a cell's result depends on: the model, the explorer, how a cell is run and how
#: its traces are written. A cell's key hashes them, so editing anything else (the docs, the
#: exceptions, how the matrix is rendered) keeps every finished cell.
RESULT_SOURCES = ("model", "simulations/explore", "simulations/verify/run.py",
                  "simulations/narrative.py", "simulations/gates.py")
ROOT = Path(__file__).resolve().parent.parent.parent


def result_code_hash(root: Path = ROOT) -> str:
    """sha256 of every Python source in RESULT_SOURCES (paths and contents, in order)."""
    digest = hashlib.sha256()
    for entry in RESULT_SOURCES:
        path = root / entry
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for file in files:
            digest.update(str(file.relative_to(root)).encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()[:16]


def cell_key(gate: str, scope: Scope, max_states: int, code: str,
             source: Optional[str]) -> str:
    payload = json.dumps({"gate": gate, "scope": scope.as_dict(), "max_states": max_states,
                          "code": code, "gate_source": source}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


def execute_cell(gate: str, scope_data: dict, max_states: int) -> dict:
    """Worker entry point (top level, so any executor can pickle it): explore one cell and
    return what the matrix needs: verdicts, trace lengths and the shortest trace of every
    (property, cause), states, completeness, sometimes coverage, costs."""
    budgets = {k: v for k, v in scope_data.items() if k != "system"}
    scope = Scope(system=SystemConfig.from_mapping(scope_data["system"]), **budgets)
    result = explore(scope, resolve(gate), max_states=max_states)
    properties, traces = {}, {}
    for name, verdict in result.verdicts().items():
        properties[name] = {"verdict": verdict.verdict, "trace_length": verdict.trace_length,
                            "causes": {c: len(f.actions) for c, f in verdict.causes.items()},
                            "why": verdict.why or None}
        if verdict.causes:
            traces[name] = {c: [describe_action(a) for a in f.actions]
                            for c, f in verdict.causes.items()}
    return {"gate_name": result.gate, "states": result.states,
            "transitions": result.transitions, "depth": result.depth,
            "complete": result.complete, "incomplete": result.incomplete,
            "seconds": round(result.seconds, 3), "properties": properties, "traces": traces,
            "sometimes": result.sometimes,
            "costs": {name: len(f.actions) for name, f in sorted(result.costs.items())},
            "gate_error": result.gate_error.detail if result.gate_error else None}


def plan(space: Space, out: Path) -> List[dict]:
    """Every cell of the space, in order: gate-major, then deployment."""
    code = result_code_hash()
    sources = {gate: gate_source(gate) for gate in space.gates}
    cells = []
    for gate in space.gates:
        for deployment in space.deployments:
            scope = cell_scope(deployment, gate, space.client)
            key = cell_key(gate, scope, space.max_states, code, sources[gate])
            cells.append({"key": key, "policy": gate, "block": deployment.block,
                          "client_profile": client_profile(gate, space.client),
                          "deployment": deployment.key(), "scope": scope.as_dict(),
                          "path": out / "cells" / f"{key}.json"})
    return cells


def plan_code() -> Dict[str, str]:
    return {"result_sources": ", ".join(RESULT_SOURCES), "sha256": result_code_hash()}


def _load(path: Path) -> Optional[dict]:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def run_space(space: Space, out: Path, workers: int = 1, scheduler: Optional[str] = None,
              progress: bool = True) -> Dict[str, object]:
    """Run every unfinished cell; returns the cell records (in plan order) and timings."""
    cells = plan(space, out)
    todo = [c for c in cells if _load(c["path"]) is None]
    (out / "cells").mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(cells), initial=len(cells) - len(todo), unit="cell",
                   desc=space.title, dynamic_ncols=True)
    cpu = 0.0
    if todo:
        with make_executor(workers, scheduler) as executor:
            futures = {executor.submit(execute_cell, c["policy"], c["scope"], space.max_states): c
                       for c in todo}
            for future in as_completed(futures):
                cell = futures[future]
                found = future.result()
                cpu += found["seconds"]
                record = {k: v for k, v in cell.items() if k != "path"} | found
                write_atomic(cell["path"], json.dumps(record, sort_keys=True))
                if bar is not None:
                    bar.update(1)
    if bar is not None:
        bar.close()
    records = [_load(c["path"]) for c in cells]
    return {"records": records, "cells": len(cells), "ran": len(todo), "code": plan_code(),
            "skipped": len(cells) - len(todo), "wall_seconds": time.perf_counter() - start,
            "explore_seconds_of_ran_cells": cpu,
            "workers": None if scheduler else workers, "scheduler": scheduler}


def judged(name: str) -> bool:
    return BY_NAME[name].judged
