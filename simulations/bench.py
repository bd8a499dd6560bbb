"""Benchmarks: `python -m simulations bench des` measures the DES engine against bare SimPy.

Figures are CPU seconds of this process (time.process_time), so another load on the machine
does not change them much. Benchmarks print figures; they never assert a speed.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Dict

import simpy

from .des import config as des_config
from .des.runner import run_replication

DEFAULT_CONFIG = Path(__file__).resolve().parent / "configs" / "rolling_restart.toml"


def bare_simpy_timeouts(count: int = 300_000) -> Dict[str, float]:
    """Timeouts per CPU second of one SimPy process doing nothing else."""
    env = simpy.Environment()

    def ticker():
        for _ in range(count):
            yield env.timeout(1)

    env.process(ticker())
    start = time.process_time()
    env.run()
    seconds = time.process_time() - start
    return {"timeouts": count, "cpu_seconds": seconds, "timeouts_per_cpu_s": count / seconds}


def des(policy: str = "strict", duration: float = 3600.0, repeats: int = 3) -> Dict[str, object]:
    """Model transitions per CPU second of the default DES config, best of `repeats`, beside
    bare SimPy's timeouts per CPU second in the same process, and their ratio."""
    config = des_config.load(DEFAULT_CONFIG, [f"timing.duration={duration}"], replications=1,
                             policies=[policy])
    best = None
    for _ in range(repeats):
        record = run_replication(config, policy, 0)
        rate = record["transitions"] / record["cpu_seconds"]
        if best is None or rate > best[0]:
            best = (rate, record)
    bare = max((bare_simpy_timeouts() for _ in range(repeats)),
               key=lambda b: b["timeouts_per_cpu_s"])
    rate, record = best
    return {"config": str(DEFAULT_CONFIG.name), "policy": policy,
            "simulated_seconds": duration, "transitions": record["transitions"],
            "cpu_seconds": record["cpu_seconds"], "transitions_per_cpu_s": rate,
            "timeouts_per_cpu_s": bare["timeouts_per_cpu_s"],
            "ratio": rate / bare["timeouts_per_cpu_s"]}


def explore_default(policy: str = "strict") -> Dict[str, object]:
    """Distinct states per second of the explorer on the default scope (one process, one core)."""
    from .explore.scope import Scope
    from .explore.search import explore
    start = time.process_time()
    result = explore(Scope(), policy)
    cpu = time.process_time() - start
    return {"scope": "default", "policy": policy, "states": result.states,
            "transitions": result.transitions, "depth": result.depth, "cpu_seconds": cpu,
            "distinct_states_per_s": result.states / cpu,
            "transitions_per_s": result.transitions / cpu}
