"""What a sleep-set partial-order reduction could save the explorer: `bench por`.

Sleep sets (Godefroid) skip a transition when another order of the same independent
transitions, explored already, reaches the same states: at a state reached by `b` after `a` was
explored from its parent, `a` "sleeps" if `a` and `b` commute there, and is not taken again. They
skip transitions, never states. This module measures how many they would skip on a scope, with
the best independence relation there can be: two actions are taken as independent at a state
exactly when both orders are enabled and reach the same state with the same events (computed,
at a cost no real search would pay), so the figures bound from above what any static relation
could skip.

Two variants are measured: every action may sleep (what a search checking only safety could
skip), and only actions that are never fair may sleep. The second is what the explorer could
use: its liveness check (`explore.liveness`) needs every fair transition of a class's first
expanded state, and a sleeping fair transition would drop an edge of that graph.

The search is breadth first on the scope without symmetry reduction (a sleep set names concrete
clients and instances; a state matched under a renaming would need its sleep set renamed), and
keeps what state caching needs: a state reached again, after its expansion, with a smaller sleep
set is expanded again for the transitions it slept through (`reexpanded`). Every run checks that
it reached every state of the full search; states reached only deeper than their depth in
breadth-first order (by a late expansion) are counted in `deeper`: a search using sleep sets
must mend their traces to keep shortest counterexamples.
"""
from __future__ import annotations

import time
from collections import Counter
from typing import Callable, Dict, FrozenSet, List, Optional, Tuple

from model import Stop, enabled_actions, initial_state, resolve_gate
from model.symmetry import Canonicalizer
from model.transitions import successor

from .explore.budgets import Budget, exhausted, spend
from .explore.liveness import FAIR_KINDS
from .explore.scope import Scope, default_system


def never_fair(action) -> bool:
    """An action no state takes as fair progress (a stop may complete a drain: it may be)."""
    kind = type(action)
    return kind not in FAIR_KINDS and kind is not Stop


class _Node:
    """A reached state: its budgets, depth, sleep set, and whether it was expanded."""

    __slots__ = ("state", "budget", "depth", "sleep", "expanded")

    def __init__(self, state, budget: Budget, depth: int, sleep: FrozenSet) -> None:
        self.state, self.budget, self.depth, self.sleep = state, budget, depth, sleep
        self.expanded = False


class _Successors:
    """The outcomes of every action enabled in one state, computed as asked."""

    def __init__(self, state, budget: Budget, config, gate) -> None:
        self.state, self.budget, self.config, self.gate = state, budget, config, gate
        self.actions = list(enabled_actions(state, config, exhausted(budget)))
        self.enabled = frozenset(self.actions)
        self._known: Dict[object, Tuple[object, tuple, Budget]] = {}

    def of(self, action) -> Tuple[object, tuple, Budget]:
        known = self._known.get(action)
        if known is None:
            state, events = successor(self.state, action, self.config, self.gate)
            known = self._known[action] = (state, tuple(events), spend(self.budget, action))
        return known

    def independent(self, a, b) -> bool:
        """Both orders of `a` and `b` enabled, reaching one state with the same events."""
        state_a, events_a, budget_a = self.of(a)
        state_b, events_b, budget_b = self.of(b)
        if b not in enabled_actions(state_a, self.config, exhausted(budget_a)) or \
                a not in enabled_actions(state_b, self.config, exhausted(budget_b)):
            return False
        state_ab, events_ab = successor(state_a, b, self.config, self.gate)
        state_ba, events_ba = successor(state_b, a, self.config, self.gate)
        return state_ab == state_ba and \
            Counter(events_a + tuple(events_ab)) == Counter(events_b + tuple(events_ba))


def full_search(scope: Scope, policy: str) -> Tuple[Dict[int, int], int]:
    """Every state of the scope (no symmetry reduction) as fingerprint -> breadth-first depth,
    and how many transitions the full search takes (every enabled action of every state)."""
    config, gate = scope.system, resolve_gate(policy)
    canon = Canonicalizer(config, False)
    state0, budget0 = initial_state(config), scope.budgets()
    fp0, _ = canon.fingerprint(state0, budget0)
    depth_of, frontier, depth, transitions = {fp0: 0}, [(state0, budget0)], 0, 0
    while frontier:
        following = []
        for state, budget in frontier:
            for action in enabled_actions(state, config, exhausted(budget)):
                transitions += 1
                new_state, _ = successor(state, action, config, gate)
                spent = spend(budget, action)
                fp, _ = canon.fingerprint(new_state, spent)
                if fp not in depth_of:
                    depth_of[fp] = depth + 1
                    following.append((new_state, spent))
        frontier, depth = following, depth + 1
    return depth_of, transitions


def sleep_set_search(scope: Scope, policy: str,
                     may_sleep: Callable[[object], bool]) -> Tuple[Dict[int, _Node], Dict]:
    """Breadth-first search with sleep sets (only actions `may_sleep` accepts ever sleep):
    (fingerprint -> node, counts: transitions taken and re-expansions)."""
    config, gate = scope.system, resolve_gate(policy)
    canon = Canonicalizer(config, False)
    state0, budget0 = initial_state(config), scope.budgets()
    fp0, _ = canon.fingerprint(state0, budget0)
    nodes = {fp0: _Node(state0, budget0, 0, frozenset())}
    # (fingerprint, the sleep set it is expanded with, only these actions or None: all)
    frontier: List[Tuple[int, FrozenSet, Optional[FrozenSet]]] = [(fp0, frozenset(), None)]
    counts = {"transitions": 0, "reexpanded": 0, "reexpanded_transitions": 0}
    while frontier:
        following: List[Tuple[int, FrozenSet, Optional[FrozenSet]]] = []
        for fp, asleep, only in frontier:
            node = nodes[fp]
            if only is None:        # its first expansion: with every sleep set it got since
                asleep, node.expanded = node.sleep, True
            successors = _Successors(node.state, node.budget, config, gate)
            done: List[object] = []
            for action in successors.actions:
                if action in asleep or (only is not None and action not in only):
                    continue
                counts["transitions"] += 1
                new_state, _, spent = successors.of(action)
                sleep = frozenset(z for z in list(asleep) + done if may_sleep(z) and
                                  z in successors.enabled and successors.independent(z, action))
                done.append(action)
                new_fp, _ = canon.fingerprint(new_state, spent)
                _arrive(nodes, following, counts, new_fp, new_state, spent, node.depth + 1,
                        sleep)
        frontier = following
    return nodes, counts


def _arrive(nodes, following, counts, fp, state, budget, depth, sleep) -> None:
    """A state reached with sleep set `sleep`: new, merged before its expansion (it sleeps
    through what every arrival sleeps through), or expanded again for what it slept through
    and this arrival does not."""
    node = nodes.get(fp)
    if node is None:
        nodes[fp] = _Node(state, budget, depth, sleep)
        following.append((fp, frozenset(), None))
    elif not node.expanded:
        node.sleep = node.sleep & sleep
    elif not node.sleep <= sleep:
        missed = node.sleep - sleep
        node.sleep = node.sleep & sleep
        counts["reexpanded"] += 1
        counts["reexpanded_transitions"] += len(missed)
        following.append((fp, sleep, missed))


def por(policy: str = "strict", instances: int = 1,
        scope: Optional[Scope] = None) -> Dict[str, object]:
    """The figures of `bench por` on `scope` (when None: the default scope with `instances`
    instances)."""
    scope = scope or Scope(system=default_system().replace(instances=instances))
    start = time.process_time()
    depth_of, full_transitions = full_search(scope, policy)
    out: Dict[str, object] = {"policy": policy, "instances": scope.system.instances,
                              "clients": scope.system.clients, "states": len(depth_of),
                              "transitions": full_transitions}
    for name, may_sleep in (("any_action_sleeps", lambda action: True),
                            ("only_unfair_actions_sleep", never_fair)):
        nodes, counts = sleep_set_search(scope, policy, may_sleep)
        missing = len(set(depth_of) - set(nodes))
        deeper = sum(1 for fp, node in nodes.items() if node.depth > depth_of.get(fp, node.depth))
        out[name] = {**counts, "states": len(nodes), "missing_states": missing,
                     "deeper": deeper,
                     "skipped_share": 1 - counts["transitions"] / max(full_transitions, 1)}
    out["cpu_seconds"] = time.process_time() - start
    return out


def text(r: Dict) -> str:
    """The figures as `bench por` prints them."""
    lines = [f"sleep sets on the default scope with {r['instances']} instance(s), without "
             f"symmetry reduction ({r['policy']}): {r['states']:,} states, "
             f"{r['transitions']:,} transitions in the full search"]
    for name, what in (("any_action_sleeps", "any action may sleep (safety only)"),
                       ("only_unfair_actions_sleep",
                        "only never-fair actions sleep (liveness kept)")):
        v = r[name]
        lines.append(f"{what}: {v['transitions']:,} transitions taken "
                     f"({v['skipped_share']:.1%} skipped), {v['reexpanded']:,} states expanded "
                     f"again for {v['reexpanded_transitions']:,} transitions they slept through, "
                     f"{v['deeper']:,} states first reached deeper than breadth first reaches "
                     f"them, {v['missing_states']:,} states missed")
    lines.append(f"(independence computed by taking both orders: an upper bound on what a "
                 f"static relation skips; {r['cpu_seconds']:.1f} CPU s)")
    return "\n".join(lines)
