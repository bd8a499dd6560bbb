"""Breadth-first exploration of the model within a scope.

Every enabled action of every reachable state is tried (LB routing choices included), budgets
permitting. Every transition's events are checked with `model.findings_of`: the first violation
of each property found is on a shortest path, because states are expanded in order of depth.
Only fingerprints and parent pointers are kept for visited states (plus the frontier), so large
scopes never hold the state graph in memory; `graph=True` builds a networkx DiGraph for small
scopes.
"""
from __future__ import annotations

import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple, Union

from model import (VIOLATIONS, Drain, GateError, apply, enabled_actions, findings_of,
                   initial_state, resolve_gate)
from model.history import (Applied, BufferCompacted, ClientRestarted, Decided, Emitted, InstanceChanged,
                           Recreated)
from model.policies import Gate, GateFunction
from model.resume import owes
from model.view import BELOW_FLOOR

from .scope import BUDGET_NAMES, BUDGETED, Scope
from .symmetry import Canonicalizer

#: situations a meaningful scope must reach ("sometimes" checks); a scope that misses one is
#: reported as vacuous for it
SOMETIMES = ("resumption", "restart", "recreated_generation", "truncated_buffer",
             "gap_resumption", "stale_client_restart", "foreign_cursor_presented")
_SPEND = {kind: BUDGET_NAMES.index(name) for name, kind in BUDGETED.items()}


def situations(event) -> Tuple[str, ...]:
    """The "sometimes" situations an event witnesses."""
    kind = type(event)
    if kind is Decided:
        out = ["resumption"]
        if event.position == BELOW_FLOOR:
            out.append("gap_resumption")
        if event.cursor_foreign:
            out.append("foreign_cursor_presented")
        return tuple(out)
    if kind is InstanceChanged and event.what in ("stop", "crash"):
        return ("restart",)
    if kind is Recreated:
        return ("recreated_generation",)
    if kind is BufferCompacted or (kind is Emitted and event.dropped is not None):
        return ("truncated_buffer",)
    if kind is ClientRestarted and event.stale:
        return ("stale_client_restart",)
    return ()


@dataclass
class Finding:
    """The first (shortest) witness of a property violation or a gate error."""
    name: str
    detail: str
    actions: List            # the path from the initial state, last action included
    source: int = 0          # fingerprint of the state the last action was taken in


@dataclass
class Exploration:
    scope: Scope
    gate: str
    symmetry: bool
    states: int = 0
    transitions: int = 0
    depth: int = 0
    seconds: float = 0.0
    complete: bool = True    # False when max_states / max_depth cut the search short
    violations: Dict[str, Finding] = field(default_factory=dict)
    sometimes: Dict[str, bool] = field(default_factory=lambda: dict.fromkeys(SOMETIMES, False))
    coverage: Counter = field(default_factory=Counter)
    gate_error: Optional[Finding] = None
    graph: object = None     # networkx.DiGraph when asked for
    parents: Optional[Dict[int, Optional[tuple]]] = None  # kept with the graph

    def holds(self, name: str) -> bool:
        return name not in self.violations

    def vacuous(self) -> List[str]:
        return [name for name, seen in self.sometimes.items() if not seen]


def waiting(state, config) -> bool:
    """Some client holds a session (idle or open) and still lacks messages it was not told it
    lost: it is waiting for them."""
    return any(c.phase in ("idle", "open") and owes(config, c) for c in state.clients)


def _path(parents: Dict[int, tuple], fp: int) -> List:
    actions = []
    while parents[fp] is not None:
        fp, action = parents[fp]
        actions.append(action)
    return actions[::-1]


def _spend(budget: Tuple[int, ...], action, scope_allows_drain: bool) -> Optional[tuple]:
    kind = type(action)
    index = _SPEND.get(kind)
    if index is None:
        if kind is Drain and not scope_allows_drain(budget):
            return None
        return budget
    if budget[index] == 0:
        return None
    return budget[:index] + (budget[index] - 1,) + budget[index + 1:]


def explore(scope: Scope, policy: Union[str, GateFunction, Gate] = "strict",
            symmetry: bool = True, max_states: Optional[int] = None,
            max_depth: Optional[int] = None, graph: bool = False) -> Exploration:
    """Explore every interleaving of `scope` under `policy`, breadth first."""
    gate = resolve_gate(policy)
    config = scope.system
    canon = Canonicalizer(config, symmetry)
    restarts_index = BUDGET_NAMES.index("restarts")
    can_drain = lambda budget: budget[restarts_index] > 0  # noqa: E731  a drain precedes a stop
    result = Exploration(scope, gate.name, symmetry)
    start = time.perf_counter()
    state0, budget0 = initial_state(config), scope.budgets()
    fp0 = canon.fingerprint(state0, budget0)
    parents: Dict[int, Optional[tuple]] = {fp0: None}
    frontier = deque([(state0, budget0, fp0, 0)])
    if graph:
        import networkx as nx
        result.graph = nx.DiGraph()
        result.graph.add_node(fp0, depth=0, waiting=False)
        result.parents = parents
    while frontier:
        state, budget, fp, depth = frontier.popleft()
        result.depth = max(result.depth, depth)
        if max_depth is not None and depth >= max_depth:
            result.complete = False
            continue
        for action in enabled_actions(state, config):
            spent = _spend(budget, action, can_drain)
            if spent is None:
                continue
            try:
                new_state, events = apply(state, action, config, gate, check=False)
            except GateError as exc:
                if result.gate_error is None:
                    result.gate_error = Finding("gate_error", str(exc),
                                                _path(parents, fp) + [action])
                continue
            result.transitions += 1
            result.coverage[type(action).__name__] += 1
            for event in events:
                for name in situations(event):
                    result.sometimes[name] = True
                if type(event) is Applied and event.duplicate and event.owner == event.client \
                        and "any_duplicate" not in result.violations:
                    result.violations["any_duplicate"] = Finding(
                        "any_duplicate", f"m{event.msg} applied again",
                        _path(parents, fp) + [action], fp)
                for found in findings_of(event):
                    if found.name != "note" and found.name not in result.violations:
                        result.violations[found.name] = Finding(
                            found.name, found.detail, _path(parents, fp) + [action], fp)
            new_fp = canon.fingerprint(new_state, spent)
            if graph:
                result.graph.add_edge(fp, new_fp, action=type(action).__name__)
            if new_fp in parents:
                continue
            parents[new_fp] = (fp, action)
            if graph:
                result.graph.nodes[new_fp]["depth"] = depth + 1
                result.graph.nodes[new_fp]["waiting"] = waiting(new_state, config)
            if max_states is not None and len(parents) > max_states:
                result.complete = False
                frontier.clear()
                break
            frontier.append((new_state, spent, new_fp, depth + 1))
    result.states = len(parents)
    result.seconds = time.perf_counter() - start
    return result


#: the canonical §4 properties, plus `any_duplicate`: a client applies one of its messages again
#: for any reason, client-caused ones included (what client dedupe should bring to zero)
PROPERTIES = VIOLATIONS + ("any_duplicate",)
