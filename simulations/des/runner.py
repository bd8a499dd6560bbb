"""Param -> Model -> Runner: run replications of a DES config under each policy.

Replication r of a run with seed S uses `SeedSequence(S).spawn(R)[r]` for every policy (common
random numbers): the records of two policies with the same replication index are a paired
comparison. Each run returns one tidy record (a dict of plain numbers and small dicts).
"""
from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from typing import Dict, Iterable, List, Optional, Tuple, Union

import numpy as np
import simpy

from model import VIOLATIONS, resolve_gate
from model.policies import STATELESS_ROWS, Gate, GateFunction, no_resumption

from ..runtime import cyclic_gc_relaxed
from .components import Arrivals
from .config import DesConfig, from_mapping, parse_row
from .faults import FaultClock
from .footprint import MemorySampler
from .servers import Fleet, Reaper, RecordExpiry, start_worker
from .world import REQUEST_KINDS, World


def build_world(config: DesConfig, policy: Union[str, GateFunction, Gate],
                seed: np.random.SeedSequence, state=None) -> World:
    """A world with its components wired, ready for `env.run`. `policy` is a policy row of the
    config (`strict`, `sdk+spec`), or a gate (run with `client.profile`)."""
    env = simpy.Environment()
    row = policy if isinstance(policy, str) else None
    if row is not None and (row in STATELESS_ROWS or row == config.system.transport):
        gate = no_resumption(row)     # a stateless transport: nothing to resume
    else:
        gate = resolve_gate(parse_row(policy)[0] if row else policy)
    world = World(env, config, gate, seed, state, row)
    world.start_worker = lambda token: start_worker(world, token)
    world.faults = FaultClock(env)
    Arrivals(world)
    Fleet(world)
    world.sampler = MemorySampler(world)
    if world.system.stateless:
        RecordExpiry(world)       # no session store to expire; records, if any, do
    else:
        Reaper(world)
    return world


def record_of(world: World, policy: str, replication: int, seed: int,
              cpu_seconds: float) -> Dict[str, object]:
    """The tidy record of a finished replication."""
    report = world.monitor.report
    hours = world.session_seconds / 3600.0
    return {
        "policy": policy, "client_profile": world.profile_name,
        "replication": replication, "seed": seed,
        "sessions": world.arrivals,
        "sessions_done": world.outcomes["done"], "sessions_failed": world.outcomes["failed"],
        "sessions_gave_up": world.outcomes["gave_up"], "session_hours": hours,
        "resumptions": report.resumptions, "reinits": report.reinits,
        "routing_reinits": report.routing_reinits, "applied": report.applied,
        "violations": {name: report.violations[name] for name in VIOLATIONS},
        "sessions_affected": {name: world.affected[name] for name in VIOLATIONS},
        "costs": dict(report.costs),
        "executions_by_cause": dict(sorted(report.causes.get("reexecuted_call", {}).items())),
        "duplicates_by_cause": dict(sorted(report.duplicates_by_cause.items())),
        "decisions": dict(sorted(report.decisions.items())),
        "statuses": {str(k): v for k, v in sorted(report.statuses.items())},
        "stall_seconds": report.stall_seconds, "stall_seconds_max": report.stall_seconds_max,
        "stall_histogram": dict(report.stall_histogram),
        "recoveries": world.recoveries, "recovery_seconds": world.recovery_seconds,
        "recovery_histogram": dict(world.recovery_histogram),
        "requests": {kind: world.requests[kind] for kind in REQUEST_KINDS},
        "calls_completed": world.calls_completed,
        "memory": world.sampler.summary(),
        "transitions": world.transitions, "simulated_seconds": world.env.now,
        "cpu_seconds": cpu_seconds,
    }


def run_replication(config: DesConfig, policy: Union[str, GateFunction, Gate], replication: int,
                    seed: Optional[np.random.SeedSequence] = None) -> Dict[str, object]:
    """One replication of `config` under `policy`; its seed is spawned from config.seed."""
    if seed is None:    # the r-th child, whatever the config's replication count
        seed = np.random.SeedSequence(config.seed).spawn(replication + 1)[replication]
    start = time.process_time()
    world = build_world(config, policy, seed)
    with cyclic_gc_relaxed():
        world.env.run(until=config.timing.duration)
    world.finish()
    return record_of(world, world.row, replication, config.seed,
                     time.process_time() - start)


def replication_seeds(config: DesConfig) -> List[np.random.SeedSequence]:
    """`SeedSequence(seed).spawn(R)`: replication r's seed does not depend on R, so adding
    replications (`--precision`) keeps every earlier one."""
    return np.random.SeedSequence(config.seed).spawn(config.replications)


def _replicate(task: Tuple[dict, str, int, np.random.SeedSequence]) -> Dict[str, object]:
    """One replication in a worker: the config travels as its mapping (what a sweep's runs
    do too), rebuilt and validated there."""
    data, policy, replication, seed = task
    return run_replication(from_mapping(data), policy, replication, seed)


def run_comparison(config: DesConfig, progress=None, first: int = 0,
                   workers: int = 1) -> List[Dict[str, object]]:
    """Every policy row of the config over replications first..R-1, paired by seed, in that
    order (replication-major): the same records on one process or on `workers` processes."""
    data = config.as_dict()
    tasks = [(data, policy, r, seed) for r, seed in enumerate(replication_seeds(config))
             if r >= first for policy in config.policies]
    records: List[Dict[str, object]] = []
    with ExitStack() as stack:
        results: Iterable[Dict[str, object]] = (run_replication(config, policy, r, seed)
                                                for _, policy, r, seed in tasks)
        if workers > 1 and len(tasks) > 1:
            pool = stack.enter_context(ProcessPoolExecutor(min(workers, len(tasks))))
            results = pool.map(_replicate, tasks)     # in task order, whatever finishes first
        for record in results:
            records.append(record)
            if progress is not None:
                progress(record)
    return records
