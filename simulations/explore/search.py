"""Breadth-first exploration of the model within a scope, with three-valued verdicts.

Every enabled action of every reachable state is tried (LB routing choices included), budgets
permitting. Every transition's events are checked with the property registry
(`model.properties`): the first violation of each property, and of each (property, cause), is on
a shortest path, because states are expanded in order of depth. Only fingerprints, parent
pointers and compact arrays for the liveness check are kept for visited states (plus the
frontier), so large scopes never hold the state graph as objects; `graph=True` also builds a
networkx DiGraph for small scopes (GraphML, drawings).

States whose fault budgets another reached state with the same model state covers are skipped
(`subsumption`, on by default; `budgets.py` says why no verdict, shortest-trace length,
"sometimes" or cost changes, and tests compare the two): `states` counts the states visited,
`subsumed` the states skipped.

A verdict is "holds" only when the search was complete: no state or depth budget was hit and no
transition was skipped because the gate raised. Otherwise a property without a counterexample is
"unknown", with the reason and the number of states reached.
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Sequence, Tuple, Union

from model import resolve_gate
from model.policies import STATELESS_ROWS, Gate, GateFunction
from model.properties import BY_NAME, LIVENESS, PROPERTIES, VERDICT_PROPERTIES

from .frontier import Search
from .scope import Scope
from .shared import SharedTransitions
from .verdict import HOLDS, UNKNOWN, VERDICTS, VIOLATED, Finding, Verdict

_WAITING = next(p for p in PROPERTIES if p.kind == LIVENESS)


@dataclass
class Exploration:
    scope: Scope
    gate: str
    symmetry: bool
    subsumption: bool = True      # whether states were skipped (the Search sets it)
    states: int = 0
    subsumed: int = 0       # states skipped: a reached state of their class covers them
    transitions: int = 0
    depth: int = 0
    seconds: float = 0.0    # CPU seconds (process time) the search took
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


def _finish(search: Search) -> Exploration:
    """Close the books of a search: coverage, state count, the liveness verdict (its time is
    counted in `seconds`)."""
    started = time.process_time()
    search.close()
    result = search.result
    result.coverage = Counter({kind.__name__: n for kind, n in search.kinds.items()})
    result.liveness = search.live.verdict(_WAITING.name, result, search.path,
                                          search.fps.__getitem__, search.first_of)
    result.seconds += time.process_time() - started
    return result


def explore(scope: Scope, policy: Union[str, GateFunction, Gate] = "strict",
            symmetry: bool = True, max_states: Optional[int] = None,
            max_depth: Optional[int] = None, graph: bool = False,
            subsumption: bool = True) -> Exploration:
    """Explore every interleaving of `scope` under `policy`, breadth first. A stateless
    transport's name as `policy` explores the scope's deployment on that transport. With
    `graph` (the whole state graph), no state is subsumed."""
    if isinstance(policy, str) and policy in STATELESS_ROWS and \
            scope.system.transport != policy:
        scope = replace(scope, system=scope.system.replace(transport=policy))
    gate = resolve_gate(policy)
    symmetry = symmetry and not scope.system.idempotency   # records name clients (symmetry.py)
    started = time.process_time()
    search = Search(scope, gate, symmetry, graph,
                    Exploration(scope, gate.name, symmetry),
                    max_states, max_depth, subsumption)
    depth = 0
    while search.active:
        search.expand_layer(depth)
        depth += 1
    search.result.seconds = time.process_time() - started
    return _finish(search)


def explore_together(scope: Scope, policies: Sequence[Union[str, GateFunction, Gate]],
                     symmetry: bool = True, max_states: Optional[int] = None,
                     max_depth: Optional[int] = None,
                     subsumption: bool = True) -> List[Exploration]:
    """`explore(scope, policy)` for each policy, the searches run in lockstep a depth layer at
    a time and sharing every outcome that does not depend on the gate, and a resumption's
    where their gates' decisions have the same consequence (`shared.SharedTransitions`).
    Each Exploration is the one `explore` gives alone (the same states, transitions, verdicts
    and traces); its `seconds` counts the layers it expanded (the outcomes it computed for
    the others included) and its liveness check."""
    rows = {p for p in policies if isinstance(p, str) and p in STATELESS_ROWS}
    if rows - {scope.system.transport}:
        raise ValueError(f"explore_together runs one deployment: {sorted(rows)} run it on "
                         f"another transport than {scope.system.transport!r} (explore each)")
    symmetry = symmetry and not scope.system.idempotency
    shared, depth = SharedTransitions(), 0
    searches = [Search(scope, gate, symmetry, False,
                       Exploration(scope, gate.name, symmetry),
                       max_states, max_depth, subsumption, shared.budgets)
                for gate in (resolve_gate(policy) for policy in policies)]
    while any(search.active for search in searches):
        for search in searches:
            if search.active:
                started = time.process_time()
                search.expand_layer(depth, shared)
                search.result.seconds += time.process_time() - started
        depth += 1
    return [_finish(search) for search in searches]


def property_kind(name: str) -> str:
    return BY_NAME[name].kind


__all__ = ["HOLDS", "UNKNOWN", "VERDICTS", "VIOLATED", "Exploration", "Finding", "Verdict",
           "explore", "explore_together", "property_kind"]
