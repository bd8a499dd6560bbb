"""What the model alone costs: the ceiling of each engine's ratio to its yardstick.

`bench des` compares the DES engine's model transitions per CPU second with bare SimPy
timeouts, and `bench explore` the explorer's distinct states per second with a plain BFS over
tuples. Neither engine can go faster than the model's own transitions it drives, so each bench
also measures the model without its engine, in the same process and on the same work:

- `apply_rate`: the very transitions of a DES replication (each state and the action applied
  to it, recorded as the replication ran) replayed through the model's transition alone (as
  the engines call it: `model.transitions.successor`, the step `model.apply` returns without
  its enabledness check): no SimPy, no components, no property monitor;
- `model_bfs`: a breadth-first search that does only what the model demands of any search
  (enabled actions, the transition, the canonical fingerprint under symmetry, a visited set):
  no property hits, no traces, no liveness graph. It reaches exactly the states of the
  explorer's search without subsumption;
- `model_split`: where that search's time goes per state (enabled actions, transitions,
  fingerprints, budgets, the rest), each part replayed alone over the search's own work.

Their rates over the yardsticks are the best ratio any engine driving this model could reach;
the engine's own rate over them is how much of its time the engine adds.
"""
from __future__ import annotations

import time
from typing import Dict, List, Optional, Tuple

import numpy as np

from model import enabled_actions, initial_state, resolve_gate
from model.state import State
from model.symmetry import Canonicalizer, Parts
from model.transitions import successor

from .des.config import DesConfig
from .des.runner import build_world
from .explore.budgets import exhausted, spend
from .explore.scope import Scope
from .runtime import cyclic_gc_paused


def recorded_replication(config: DesConfig, policy: str, replication: int = 0):
    """Run replication `replication` of `config` under `policy` (as `run_replication` seeds it)
    and return every (state, action) the world applied, in order, with its system and gate."""
    seed = np.random.SeedSequence(config.seed).spawn(replication + 1)[replication]
    world = build_world(config, policy, seed)
    log: List[Tuple[object, object]] = []
    applying = world.apply

    def recording(action):
        log.append((world.state, action))
        return applying(action)

    world.apply = recording     # every component applies through the world
    world.env.run(until=config.timing.duration)
    return log, world.system, world.gate


def apply_rate(log, system, gate) -> float:
    """Transitions per CPU second of `model.apply` alone over a recorded replication (with the
    cyclic collector paused: the log keeps every state alive, which a replication does not, and
    the collector would traverse them all again and again)."""
    with cyclic_gc_paused():
        start = time.process_time()
        for state, action in log:
            successor(state, action, system, gate)
        return len(log) / max(time.process_time() - start, 1e-9)


def model_bfs(scope: Scope, policy: str,
              expanded: Optional[List[Tuple[State, tuple, Parts, frozenset]]] = None,
              successors: Optional[List[List[int]]] = None) -> Tuple[int, float]:
    """(distinct states, CPU seconds) of a search that only drives the model over `scope`;
    with `expanded`, each state is appended to it as the search expands it, with its budgets,
    its Parts and the action kinds its budgets exclude (every distinct state, in the order the
    search reaches them: the initial state first); with `successors`, a list for each state
    expanded, in that order, of the index (in that order) of each successor's class, in
    enabled-action order (a successor that renames the state kept for its class gets its
    index): the search's graph."""
    config, gate = scope.system, resolve_gate(policy)
    canon = Canonicalizer(config, True)
    start = time.process_time()
    state0, budget0 = initial_state(config), scope.budgets()
    fp0, parts0 = canon.fingerprint(state0, budget0)
    visited, frontier = {fp0: 0}, [(state0, budget0, parts0)]
    without = {}
    while frontier:
        following = []
        for state, budget, parts in frontier:
            spent_kinds = without.get(budget)
            if spent_kinds is None:
                spent_kinds = without[budget] = exhausted(budget)
            if expanded is not None:
                expanded.append((state, budget, parts, spent_kinds))
            if successors is not None:
                successors.append([])
            for action in enabled_actions(state, config, spent_kinds):
                new_state, _ = successor(state, action, config, gate)
                spent = spend(budget, action)
                fp, new_parts = canon.fingerprint(new_state, spent, state, parts)
                if fp not in visited:
                    visited[fp] = len(visited)
                    following.append((new_state, spent, new_parts))
                if successors is not None:
                    successors[-1].append(visited[fp])
        frontier = following
    return len(visited), time.process_time() - start


def _best(run, repeats: int) -> float:
    """The least CPU seconds `run()` took over `repeats` runs."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def model_split(scope: Scope, policy: str, repeats: int = 3) -> Dict[str, float]:
    """Where `model_bfs`'s time goes, in microseconds per distinct state: the search's work is
    recorded once (each expanded state, each transition), then each part is replayed alone,
    best of `repeats`: `enabled_us` (enabled actions of every expanded state), `successor_us`
    (every transition), `fingerprint_us` (every successor's canonical fingerprint, taken as
    transitions with fingerprints less transitions alone, on fresh successors, so that no
    hash a record keeps is counted as known) and `budgets_us` (every budget spent). `rest_us`
    is the search's own time per state (a round of `model_bfs`) less those: the visited set and
    the frontier. `transitions_per_state` is their ratio."""
    config, gate = scope.system, resolve_gate(policy)
    canon = Canonicalizer(config, True)
    expanded: List[Tuple[State, tuple, Parts, frozenset]] = []
    with cyclic_gc_paused():
        states = model_bfs(scope, policy, expanded)[0]
        steps = [(state, action, budget, parts) for state, budget, parts, kinds in expanded
                 for action in enabled_actions(state, config, kinds)]

    def enabled():
        for state, _, _, kinds in expanded:
            enabled_actions(state, config, kinds)

    def transitions():
        for state, action, _, _ in steps:
            successor(state, action, config, gate)

    def fingerprinted():
        for state, action, budget, parts in steps:
            canon.fingerprint(successor(state, action, config, gate)[0], spend(budget, action),
                              state, parts)

    def budgets():
        for _, action, budget, _ in steps:
            spend(budget, action)

    with cyclic_gc_paused():
        per_state = 1e6 / states
        split = {"enabled_us": _best(enabled, repeats) * per_state,
                 "successor_us": _best(transitions, repeats) * per_state,
                 "budgets_us": _best(budgets, repeats) * per_state}
        both = _best(fingerprinted, repeats) * per_state
        split["fingerprint_us"] = both - split["budgets_us"] - split["successor_us"]
        search = min(model_bfs(scope, policy)[1] for _ in range(repeats)) * per_state
    split["search_us"] = search
    split["rest_us"] = search - sum(split[k] for k in ("enabled_us", "successor_us",
                                                       "budgets_us", "fingerprint_us"))
    split["transitions_per_state"] = len(steps) / states
    return split
