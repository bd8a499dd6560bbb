"""Breadth-first exploration of the model within a scope, with three-valued verdicts.

Every enabled action of every reachable state is tried (LB routing choices included), budgets
permitting. Every transition's events are checked with the property registry
(`model.properties`): the first violation of each property, and of each (property, cause), is on
a shortest path, because states are expanded in order of depth. Only fingerprints, parent
pointers and compact arrays for the liveness check are kept for visited states (plus the
frontier), so large scopes never hold the state graph as objects; `graph=True` also builds a
networkx DiGraph for small scopes (GraphML, drawings).

A verdict is "holds" only when the search was complete: no state or depth budget was hit and no
transition was skipped because the gate raised. Otherwise a property without a counterexample is
"unknown", with the reason and the number of states reached.
"""
from __future__ import annotations

import time
from array import array
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Optional, Tuple, Union

from model import Drain, GateError, Stop, apply, enabled_actions, initial_state, resolve_gate
from model.policies import Gate, GateFunction
from model.properties import (
    BY_NAME,
    COST,
    LIVENESS,
    PROPERTIES,
    SAFETY,
    SOMETIMES,
    VERDICT_PROPERTIES,
    hits_of,
)
from model.symmetry import Canonicalizer

from .liveness import LivenessGraph, is_fair
from .scope import BUDGET_NAMES, BUDGETED, Scope
from .verdict import HOLDS, UNKNOWN, VERDICTS, VIOLATED, Finding, Verdict

_SPEND = {kind: BUDGET_NAMES.index(name) for name, kind in BUDGETED.items()}
_WAITING = next(p for p in PROPERTIES if p.kind == LIVENESS)


@dataclass
class Exploration:
    scope: Scope
    gate: str
    symmetry: bool
    states: int = 0
    transitions: int = 0
    depth: int = 0
    seconds: float = 0.0
    incomplete: List[str] = field(default_factory=list)   # why the search is not complete
    violations: Dict[str, Finding] = field(default_factory=dict)
    by_cause: Dict[Tuple[str, str], Finding] = field(default_factory=dict)
    sometimes: Dict[str, bool] = field(default_factory=dict)
    costs: Dict[str, Finding] = field(default_factory=dict)
    coverage: Counter = field(default_factory=Counter)
    gate_error: Optional[Finding] = None
    liveness: Optional[Verdict] = None
    graph: object = None     # networkx.DiGraph when asked for
    parents: Optional[Dict[int, Optional[tuple]]] = None

    @property
    def complete(self) -> bool:
        return not self.incomplete

    def verdict(self, name: str) -> Verdict:
        """The three-valued verdict of a safety or liveness property."""
        if name == _WAITING.name:
            return self.liveness
        causes = {cause: f for (n, cause), f in sorted(self.by_cause.items()) if n == name}
        if name in self.violations:
            return Verdict(name, VIOLATED, self.violations[name], causes=causes)
        if self.complete:
            return Verdict(name, HOLDS)
        return Verdict(name, UNKNOWN, why=self.why_unknown())

    def verdicts(self) -> Dict[str, Verdict]:
        return {name: self.verdict(name) for name in VERDICT_PROPERTIES}

    def holds(self, name: str) -> bool:
        return self.verdict(name).verdict == HOLDS

    def why_unknown(self) -> str:
        return "; ".join(self.incomplete) + f", after {self.states:,} distinct states"

    def vacuous(self) -> List[str]:
        """Sometimes checks this deployment can reach but the scope never did."""
        return [name for name, seen in self.sometimes.items() if seen is False]


def _spend(budget: Tuple[int, ...], action) -> Tuple[int, ...]:
    """The budgets left after `action` (listed only while its budget lasts: `_exhausted`)."""
    index = _SPEND.get(type(action))
    if index is None:
        return budget
    return budget[:index] + (budget[index] - 1,) + budget[index + 1:]


def _exhausted(budget: Tuple[int, ...]) -> FrozenSet[type]:
    """The action kinds a state with these budgets left may not take: those whose budget is
    spent, and drains once no restart is left (a drain only leads to a stop)."""
    spent = {kind for kind, index in _SPEND.items() if budget[index] == 0}
    if Stop in spent:
        spent.add(Drain)
    return frozenset(spent)


class _Search:
    """One breadth-first search: the bookkeeping that turns transitions into findings."""

    def __init__(self, scope: Scope, gate: Gate, symmetry: bool, graph: bool):
        self.scope, self.gate, self.config = scope, gate, scope.system
        self.canon = Canonicalizer(self.config, symmetry)
        self.result = Exploration(scope, gate.name, symmetry)
        self.result.sometimes = {p.name: (False if p.applies(self.config) else None)
                                 for p in PROPERTIES if p.kind == SOMETIMES}
        # The visited set: fingerprint -> node index, and per node index (compact arrays) its
        # parent's index and the action taken there (an index into `actions`, each distinct
        # action kept once); the node's fingerprint is self.live.fps[index].
        self.index: Dict[int, int] = {}
        self.parent = array("q")
        self.via = array("l")
        self.actions: List = []
        self.action_ids: Dict[object, int] = {}
        self.live = LivenessGraph()
        self.graph = None
        if graph:
            import networkx as nx
            self.graph = self.result.graph = nx.DiGraph()
            self.result.parents = {}

    def add_node(self, fp: int, state, parent: int, action, depth: int) -> int:
        """Record a newly reached state (parent -1: the initial state); returns its index."""
        cause = _WAITING.waiting(state, self.config)
        idx = self.index[fp] = self.live.add_node(fp, cause)
        self.parent.append(parent)
        if action is None:
            self.via.append(-1)
        else:
            code = self.action_ids.get(action)
            if code is None:
                code = self.action_ids[action] = len(self.actions)
                self.actions.append(action)
            self.via.append(code)
        if self.graph is not None:
            self.graph.add_node(fp, depth=depth, waiting=cause is not None)
            self.result.parents[fp] = None if parent < 0 else \
                (self.live.fps[parent], action)
        return idx

    def path(self, idx: int) -> List:
        """The actions from the initial state to node `idx`."""
        actions = []
        while self.parent[idx] >= 0:
            actions.append(self.actions[self.via[idx]])
            idx = self.parent[idx]
        return actions[::-1]

    def record(self, u: int, action, events) -> None:
        """Findings, costs and sometimes situations of one transition from node `u`."""
        r = self.result
        for event in events:
            for prop, hit in hits_of(event):
                if prop.kind == SOMETIMES:
                    r.sometimes[prop.name] = True
                elif prop.kind == COST:
                    if prop.name not in r.costs:
                        r.costs[prop.name] = Finding(prop.name, hit.detail,
                                                     self.path(u) + [action], self.live.fps[u],
                                                     hit.cause)
                elif prop.kind == SAFETY:   # judged or diagnostic: findings_of's safety ones
                    self._found(prop.name, hit.cause, hit.detail, u, action)

    def _found(self, name: str, cause: str, detail: str, u: int, action) -> None:
        r = self.result
        if (name, cause) in r.by_cause:
            return
        finding = Finding(name, detail, self.path(u) + [action], self.live.fps[u], cause)
        r.by_cause[(name, cause)] = finding
        r.violations.setdefault(name, finding)


def explore(scope: Scope, policy: Union[str, GateFunction, Gate] = "strict",
            symmetry: bool = True, max_states: Optional[int] = None,
            max_depth: Optional[int] = None, graph: bool = False) -> Exploration:
    """Explore every interleaving of `scope` under `policy`, breadth first."""
    gate = resolve_gate(policy)
    search = _Search(scope, gate, symmetry, graph)
    config, canon, result = scope.system, search.canon, search.result
    exhausted: Dict[Tuple[int, ...], FrozenSet[type]] = {}
    kinds: Counter = Counter()    # transitions per action kind (named in result.coverage)
    start = time.perf_counter()
    state0, budget0 = initial_state(config), scope.budgets()
    fp0, parts0 = canon.fingerprint(state0, budget0)
    search.add_node(fp0, state0, -1, None, 0)
    frontier = deque([(state0, budget0, fp0, parts0, 0)])
    cut = False
    while frontier and not cut:
        state, budget, fp, parts, depth = frontier.popleft()
        result.depth = max(result.depth, depth)
        if max_depth is not None and depth >= max_depth:
            if not any("depth" in why for why in result.incomplete):
                result.incomplete.append(f"depth budget ({max_depth} steps) hit")
            continue
        u, whole = search.index[fp], True
        without = exhausted.get(budget)
        if without is None:
            without = exhausted[budget] = _exhausted(budget)
        for action in enabled_actions(state, config, without):
            spent = _spend(budget, action)
            try:
                new_state, events = apply(state, action, config, gate, check=False)
            except GateError as exc:
                whole = False
                if result.gate_error is None:
                    result.gate_error = Finding("gate_error", str(exc),
                                                search.path(u) + [action], fp)
                    result.incomplete.append(f"the gate raised ({exc}); those transitions "
                                             "were skipped")
                continue
            result.transitions += 1
            kinds[type(action)] += 1
            search.record(u, action, events)
            new_fp, new_parts = canon.fingerprint(new_state, spent, state, parts)
            if search.graph is not None:
                search.graph.add_edge(fp, new_fp, action=type(action).__name__)
            v = search.index.get(new_fp)
            if v is None:
                if max_states is not None and len(search.index) >= max_states:
                    result.incomplete.append(f"state budget ({max_states:,} states) hit")
                    whole, cut = False, True
                    break
                v = search.add_node(new_fp, new_state, u, action, depth + 1)
                frontier.append((new_state, spent, new_fp, new_parts, depth + 1))
            if is_fair(action, state):
                search.live.add_edge(u, v)
        if whole:
            search.live.expanded(u)
    result.coverage = Counter({kind.__name__: n for kind, n in kinds.items()})
    result.states = len(search.index)
    result.liveness = search.live.verdict(_WAITING.name, result, search.path)
    result.seconds = time.perf_counter() - start
    return result


def property_kind(name: str) -> str:
    return BY_NAME[name].kind


__all__ = ["HOLDS", "UNKNOWN", "VERDICTS", "VIOLATED", "Exploration", "Finding", "Verdict",
           "explore", "property_kind"]
