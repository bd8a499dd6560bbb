"""One cell of the verification matrix: explore a deployment under a gate, keep what the matrix
needs. This module, the model, the explorer, the trace renderer and the gate loader are what a
cell's result depends on; `RESULT_SOURCES` names them and a cell's key hashes them, so editing
anything else (docs, exceptions, rendering, planning) keeps every finished cell.
"""
from __future__ import annotations

import hashlib
import inspect
from pathlib import Path
from typing import List, Optional

from model import NAMED_GATES, SystemConfig
from model.policies import STATELESS_ROWS, no_resumption

from ..explore.scope import Scope
from ..explore.search import explore, explore_together
from ..gates import load_gate
from ..provenance import sources_hash
from ..render.narrative import describe_action

RESULT_SOURCES = ("model", "simulations/explore", "simulations/verify/cell.py",
                  "simulations/render/narrative.py", "simulations/gates.py")
ROOT = Path(__file__).resolve().parent.parent.parent


def result_code_hash(root: Path = ROOT) -> str:
    """sha256 of every Python source in RESULT_SOURCES (paths and contents, in order)."""
    return sources_hash(RESULT_SOURCES, root)


def resolve(gate: str):
    """A policy name, a stateless transport's row (no gate) or a user's gate loaded from
    MODULE:FUNCTION."""
    if gate in STATELESS_ROWS:
        return no_resumption(gate)
    return gate if gate in NAMED_GATES else load_gate(gate)


def gate_source(gate: str) -> Optional[str]:
    """A hash of a user's gate's source (so editing it re-runs its cells); None for policies."""
    if gate in NAMED_GATES or gate in STATELESS_ROWS:
        return None
    try:
        text = inspect.getsource(load_gate(gate))
    except (OSError, TypeError):
        text = gate
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _scope(scope_data: dict) -> Scope:
    budgets = {k: v for k, v in scope_data.items() if k != "system"}
    return Scope(system=SystemConfig.from_mapping(scope_data["system"]), **budgets)


def _record(result) -> dict:
    """What the matrix keeps of one exploration: verdicts, trace lengths and the shortest
    trace of every (property, cause), states, completeness, sometimes coverage, costs."""
    properties, traces = {}, {}
    for name, verdict in result.verdicts().items():
        properties[name] = {"verdict": verdict.verdict, "trace_length": verdict.trace_length,
                            "causes": {c: len(f.actions) for c, f in verdict.causes.items()},
                            "why": verdict.why or None}
        if verdict.causes:
            traces[name] = {c: [describe_action(a) for a in f.actions]
                            for c, f in verdict.causes.items()}
    return {"gate_name": result.gate, "states": result.states, "subsumed": result.subsumed,
            "transitions": result.transitions, "depth": result.depth,
            "complete": result.complete, "incomplete": result.incomplete,
            "seconds": round(result.seconds, 3), "properties": properties, "traces": traces,
            "sometimes": result.sometimes,
            "costs": {name: len(f.actions) for name, f in sorted(result.costs.items())},
            "gate_error": result.gate_error.detail if result.gate_error else None}


def execute_cell(gate: str, scope_data: dict, max_states: int) -> dict:
    """Worker entry point (top level, so any executor can pickle it): explore one cell and
    return what the matrix needs of it (`_record`)."""
    return _record(explore(_scope(scope_data), resolve(gate), max_states=max_states))


def execute_cells(gates: List[str], scope_data: dict, max_states: int) -> List[dict]:
    """Worker entry point: the cells of one scope under several gates, explored together
    (`explore_together`: the same records as `execute_cell` of each, computed once where the
    gate does not matter)."""
    found = explore_together(_scope(scope_data), [resolve(g) for g in gates],
                             max_states=max_states)
    return [_record(result) for result in found]
