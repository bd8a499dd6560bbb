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
  explorer's search without subsumption.

Their rates over the yardsticks are the best ratio any engine driving this model could reach;
the engine's own rate over them is how much of its time the engine adds.
"""
from __future__ import annotations

import time
from typing import List, Optional, Tuple

import numpy as np

from model import enabled_actions, initial_state, resolve_gate
from model.state import State
from model.symmetry import Canonicalizer
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
              reached: Optional[List[State]] = None) -> Tuple[int, float]:
    """(distinct states, CPU seconds) of a search that only drives the model over `scope`;
    with `reached`, every distinct state is appended to it in the order the search reaches
    them (the initial state first)."""
    config, gate = scope.system, resolve_gate(policy)
    canon = Canonicalizer(config, True)
    start = time.process_time()
    state0, budget0 = initial_state(config), scope.budgets()
    fp0, parts0 = canon.fingerprint(state0, budget0)
    visited, frontier = {fp0}, [(state0, budget0, parts0)]
    if reached is not None:
        reached.append(state0)
    without = {}
    while frontier:
        following = []
        for state, budget, parts in frontier:
            spent_kinds = without.get(budget)
            if spent_kinds is None:
                spent_kinds = without[budget] = exhausted(budget)
            for action in enabled_actions(state, config, spent_kinds):
                new_state, _ = successor(state, action, config, gate)
                spent = spend(budget, action)
                fp, new_parts = canon.fingerprint(new_state, spent, state, parts)
                if fp not in visited:
                    visited.add(fp)
                    following.append((new_state, spent, new_parts))
                    if reached is not None:
                        reached.append(new_state)
        frontier = following
    return len(visited), time.process_time() - start
