"""Benchmarks: `bench des` (the DES engine against bare SimPy) and `bench sweep` (a sweep on 1
and 2 worker processes); `bench explore` is in `simulations.bench_explore`.

Figures are CPU seconds of this process (time.process_time), so another load on the machine
does not change them much. Benchmarks print figures; they never assert a speed.
"""
from __future__ import annotations

import gc
import time
from pathlib import Path
from typing import Dict, List

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


def median_pair(pairs: List[Dict[str, object]], key: str = "ratio",
                 digits: int = 4) -> Dict[str, object]:
    """The pair whose `key` is the median of all pairs' (the lower middle of an even count),
    with every pair's beside it (`key` + "s"): each pair measures the engine and its yardstick
    back to back, so a change in this machine's speed between pairs moves both alike."""
    ordered = sorted(pairs, key=lambda pair: pair[key])
    chosen = dict(ordered[(len(ordered) - 1) // 2])
    chosen[key + "s"] = [round(pair[key], digits) for pair in pairs]
    chosen["repeats"] = len(pairs)
    return chosen


def des(policy: str = "strict", duration: float = 3600.0, repeats: int = 5) -> Dict[str, object]:
    """Model transitions per CPU second of the default DES config beside bare SimPy's timeouts
    per CPU second in the same process, measured as `repeats` back-to-back pairs; the figures
    are those of the pair with the median ratio (`ratios`: every pair's). Each pair also
    replays the replication's transitions through `model.apply` alone (`ceilings`): the
    ceiling of the ratio, and the share of the DES's time that is the model's."""
    from .ceilings import recorded_replication
    config = des_config.load(DEFAULT_CONFIG, [f"timing.duration={duration}"], replications=1,
                             policies=[policy], baseline=policy)
    log, system, gate = recorded_replication(config, policy, 0)
    # the log keeps a replication's every state alive: out of the cyclic collector's way, or
    # each timed replication would pay for traversing it
    gc.collect()
    gc.freeze()
    pairs = []
    try:
        for _ in range(repeats):
            pairs.append(_des_pair(config, policy, duration, log, system, gate))
    finally:
        gc.unfreeze()
    return median_pair(pairs)


def _des_pair(config, policy: str, duration: float, log, system, gate) -> Dict[str, object]:
    """One back-to-back measurement: bare SimPy, the DES replication, bare SimPy again (the
    yardstick's rate is the mean of the runs either side, so a drift of this machine's speed
    during the pair moves both sides alike), then `model.apply` alone."""
    from .ceilings import apply_rate
    before = bare_simpy_timeouts()["timeouts_per_cpu_s"]
    record = run_replication(config, policy, 0)
    after = bare_simpy_timeouts()["timeouts_per_cpu_s"]
    bare = (before + after) / 2
    model_rate = apply_rate(log, system, gate)
    rate = record["transitions"] / record["cpu_seconds"]
    return {"config": str(DEFAULT_CONFIG.name), "policy": policy,
            "simulated_seconds": duration, "transitions": record["transitions"],
            "cpu_seconds": record["cpu_seconds"], "transitions_per_cpu_s": rate,
            "timeouts_per_cpu_s": bare, "timeouts_either_side": [before, after],
            "ratio": rate / bare,
            "recorded_transitions": len(log),
            "apply_transitions_per_s": model_rate,
            "ceiling_ratio": model_rate / bare,
            "apply_share": rate / model_rate}


SWEEP_BENCH = """title = "bench"
base = "{base}"
policies = ["naive", "range", "generation", "provenance", "strict", "sdk"]
replications = 4
seed = 5
[set]
"timing.duration" = 1800.0
[grid]
"timing.restart_period" = [300.0]
"""


def sweep(workers: tuple = (1, 2), repeats: int = 3) -> Dict[str, object]:
    """Runs per second of the same 24-run sweep on 1 and on 2 local worker processes (best of
    `repeats`, alternating), and the parallel efficiency (speed-up / workers)."""
    import tempfile

    from .sweep import spec as sweep_spec
    from .sweep.execute import run_sweep
    figures: Dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.toml"
        path.write_text(SWEEP_BENCH.format(base=DEFAULT_CONFIG))
        spec = sweep_spec.load(path)
        for attempt in range(repeats):  # best of `repeats`: this machine's speed varies
            for n in workers:
                timing = run_sweep(spec, Path(tmp) / f"w{n}-{attempt}", workers=n,
                                   progress=False)
                rate = timing["runs"] / timing["wall_seconds"]
                key = f"runs_per_s_{n}_workers"
                figures[key] = max(figures.get(key, 0.0), rate)
                figures["runs"] = timing["runs"]
    first, last = workers[0], workers[-1]
    speedup = figures[f"runs_per_s_{last}_workers"] / figures[f"runs_per_s_{first}_workers"]
    figures["speedup"] = speedup
    figures["parallel_efficiency"] = speedup / (last / first)
    figures["machine_ceiling"] = max(machine_ceiling() for _ in range(repeats))
    figures["efficiency_vs_ceiling"] = figures["parallel_efficiency"] / figures["machine_ceiling"]
    return figures


def _busy(n: int) -> int:
    total = 0
    for i in range(n):
        total = (total + i * i) % 1_000_003
    return total


def machine_ceiling(n: int = 4_000_000) -> float:
    """Parallel efficiency of two independent pure-Python CPU loops on this machine: what two
    workers can reach at best when both cores are busy (shared caches, SMT, clocks)."""
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(_busy, [1000, 1000]))  # start the workers before timing
        start = time.perf_counter()
        pool.submit(_busy, n).result()
        one = time.perf_counter() - start
        start = time.perf_counter()
        list(pool.map(_busy, [n, n]))
        two = time.perf_counter() - start
    return one / two


def text(target: str, r: dict) -> str:
    """The figures of `bench des` or `bench sweep` as the line(s) `bench` prints."""
    if target == "sweep":
        return (f"sweep ({r['runs']} runs): {r['runs_per_s_1_workers']:.2f} runs/s on 1 "
                f"worker, {r['runs_per_s_2_workers']:.2f} on 2; efficiency "
                f"{r['parallel_efficiency']:.2f} (this machine's two-process ceiling "
                f"{r['machine_ceiling']:.2f})")
    return (f"DES ({r['config']}, {r['policy']}, {r['simulated_seconds']:g} simulated s): "
            f"{r['transitions']} transitions in {r['cpu_seconds']:.2f} CPU s = "
            f"{r['transitions_per_cpu_s']:,.0f}/s; bare SimPy {r['timeouts_per_cpu_s']:,.0f} "
            f"timeouts/s (the mean of its runs either side); ratio {r['ratio']:.3f} "
            f"(median of {r['repeats']} back-to-back "
            f"measurements; ratios {r['ratios']})\n"
            f"the model alone (the replication's {r['recorded_transitions']} transitions "
            f"replayed through model.apply): {r['apply_transitions_per_s']:,.0f}/s = ratio "
            f"{r['ceiling_ratio']:.3f} over bare SimPy, the ceiling of any engine driving this "
            f"model; model.apply is {r['apply_share']:.0%} of the DES's time")
