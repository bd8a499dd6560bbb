"""Benchmarks: `python -m simulations bench des` measures the DES engine against bare SimPy.

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


def explore_default(policy: str = "strict", repeats: int = 5) -> Dict[str, object]:
    """Distinct states per CPU second of the explorer on the default scope (one process, one
    core), beside a plain Python BFS in the same process (`simulations.yardstick`): searched to
    the end of a space of about as many states, with the same successors per state, over
    nested tuples shaped like `typical_state`, the reached state of median size
    (`baseline_width` scalars, `baseline_nesting` deep; `reached_scalars` gives the spread).
    `baseline_states_per_s` is its rate and `ratio` the explorer's rate over it;
    `flat_baseline_states_per_s` and `flat_ratio` are the same over one flat tuple of as many
    scalars. The yardsticks of earlier versions, searches of an unbounded tree cut off at as
    many states (most of them leaves never expanded), are kept beside it: shaped like the
    median state (`truncated_baseline_states_per_s`, `truncated_ratio`, one session's) and
    like the initial state, the emptiest there is (`initial_shape_baseline_states_per_s`,
    `initial_shape_ratio`, the first versions'). Measured as `repeats` back-to-back rounds; the
    figures are those of the one with the median `ratio` (`ratios`: every one's). Each round
    also runs `ceilings.model_bfs` (the same search doing only what the model demands):
    `model_ratio`, its rate over the BFS, is the ceiling of `ratio`; `explorer_over_model` is
    the explorer's rate over it. These figures are of the search that visits every state
    (`subsumption=False`); each round also times the search as `explore` runs it, skipping
    states whose budgets a reached state covers: `subsumption` holds its states, the states it
    skipped and its CPU seconds, `speedup` the full search's CPU time over its, and
    `covered_ratio` the full search's states per CPU second of it over the BFS (the rate at
    which it decides the scope, not a per-state rate). `model_split` is where the model-alone
    search's time goes, per state (`ceilings.model_split`, measured once after the rounds). All
    run with the cyclic garbage collector paused, as `explore` and `verify` run searches."""
    from model import initial_state

    from . import yardstick
    from .ceilings import model_bfs, model_split
    from .explore.scope import Scope
    from .explore.search import explore
    from .runtime import cyclic_gc_paused
    state0 = initial_state(Scope().system)
    with cyclic_gc_paused():
        shape, spread = yardstick.typical_state(Scope(), policy)
    width = yardstick.scalars(shape)
    pairs = []
    for _ in range(repeats):
        with cyclic_gc_paused():
            start = time.process_time()
            result = explore(Scope(), policy, subsumption=False)
            cpu = time.process_time() - start
            start = time.process_time()
            reduced = explore(Scope(), policy)
            reduced_cpu = time.process_time() - start
            branching = result.transitions / max(result.states, 1)
            shaped = yardstick.exhaustive_bfs(result.states, branching, shape)
            flat = yardstick.exhaustive_bfs(result.states, branching, (0,) * width)
            truncated = yardstick.truncated_bfs(result.states, branching, shape)
            initial = yardstick.truncated_bfs(result.states, branching, state0)
            model_states, model_cpu = model_bfs(Scope(), policy)
        rate = result.states / cpu
        model_rate = model_states / model_cpu
        pairs.append({
            "scope": "default", "policy": policy, "states": result.states,
            "transitions": result.transitions, "depth": result.depth, "cpu_seconds": cpu,
            "distinct_states_per_s": rate, "transitions_per_s": result.transitions / cpu,
            "baseline_states_per_s": shaped["states_per_s"],
            "baseline_states": shaped["states"], "baseline_transitions": shaped["transitions"],
            "baseline_depth": shaped["depth"],
            "baseline_width": width, "baseline_nesting": yardstick.nesting(shape),
            "reached_scalars": spread,
            "ratio": rate / shaped["states_per_s"],
            "flat_baseline_states_per_s": flat["states_per_s"],
            "flat_ratio": rate / flat["states_per_s"],
            "truncated_baseline_states_per_s": truncated["states_per_s"],
            "truncated_ratio": rate / truncated["states_per_s"],
            "initial_shape_baseline_states_per_s": initial["states_per_s"],
            "initial_shape_width": spread["initial"],
            "initial_shape_nesting": yardstick.nesting(state0),
            "initial_shape_ratio": rate / initial["states_per_s"],
            "model_bfs_states": model_states, "model_bfs_states_per_s": model_rate,
            "model_ratio": model_rate / shaped["states_per_s"],
            "explorer_over_model": rate / model_rate,
            "subsumption": {"states": reduced.states, "subsumed": reduced.subsumed,
                            "transitions": reduced.transitions, "cpu_seconds": reduced_cpu,
                            "speedup": cpu / reduced_cpu,
                            "covered_ratio": result.states / reduced_cpu
                            / shaped["states_per_s"]}})
    chosen = median_pair(pairs)
    chosen["model_split"] = model_split(Scope(), policy)
    return chosen


def explore_scope(policy: str, instances: int) -> Dict[str, object]:
    """Wall time and peak memory (resident set) of `explore --instances N` on the default
    scope, run in a fresh process so that nothing else this process holds is counted."""
    from .bench_scopes import measure_scope
    return {"instances": instances,
            **measure_scope(("--instances", str(instances)), policy)}


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
    """A benchmark's figures as the line(s) `bench` prints."""
    if target == "sweep":
        return (f"sweep ({r['runs']} runs): {r['runs_per_s_1_workers']:.2f} runs/s on 1 "
                f"worker, {r['runs_per_s_2_workers']:.2f} on 2; efficiency "
                f"{r['parallel_efficiency']:.2f} (this machine's two-process ceiling "
                f"{r['machine_ceiling']:.2f})")
    if target == "explore":
        return (f"explore (default scope, {r['policy']}): {r['states']:,} states, "
                f"{r['transitions']:,} transitions in {r['cpu_seconds']:.2f} CPU s = "
                f"{r['distinct_states_per_s']:,.0f} distinct states/s; a plain Python BFS "
                f"searched to the end of {r['baseline_states']:,} states with "
                f"{r['baseline_transitions'] / r['baseline_states']:.2f} successors per state, "
                f"over nested tuples shaped like the median reached state "
                f"({r['baseline_width']} scalars, {r['baseline_nesting']} deep; reached "
                f"states hold {r['reached_scalars']['min']}-{r['reached_scalars']['max']}): "
                f"{r['baseline_states_per_s']:,.0f}/s, ratio {r['ratio']:.3f}; over one flat "
                f"tuple {r['flat_baseline_states_per_s']:,.0f}/s, ratio {r['flat_ratio']:.3f} "
                f"(median of {r['repeats']} back-to-back measurements; ratios {r['ratios']})"
                f"\nthe earlier yardsticks, an unbounded tree cut off at as many states, most "
                f"of them leaves never expanded: shaped like the median state "
                f"{r['truncated_baseline_states_per_s']:,.0f}/s, ratio "
                f"{r['truncated_ratio']:.3f}; like the initial state "
                f"({r['initial_shape_width']} scalars, {r['initial_shape_nesting']} deep) "
                f"{r['initial_shape_baseline_states_per_s']:,.0f}/s, ratio "
                f"{r['initial_shape_ratio']:.3f}"
                f"\nthe model alone (enabled actions, apply, fingerprint, a visited set; "
                f"{r['model_bfs_states']:,} states): {r['model_bfs_states_per_s']:,.0f}/s = "
                f"ratio {r['model_ratio']:.3f} over the nested-tuple BFS, the ceiling of any "
                f"search of this model; the explorer runs at {r['explorer_over_model']:.2f} of it"
                f"\nits time per state, in microseconds: enabled actions "
                f"{r['model_split']['enabled_us']:.2f}, transitions "
                f"{r['model_split']['successor_us']:.2f} "
                f"({r['model_split']['transitions_per_state']:.2f} per state), fingerprints "
                f"{r['model_split']['fingerprint_us']:.2f}, budgets "
                f"{r['model_split']['budgets_us']:.2f}, the search's own "
                f"{r['model_split']['rest_us']:.2f}: {r['model_split']['search_us']:.2f} in all, "
                f"where the nested-tuple BFS spends {1e6 / r['baseline_states_per_s']:.2f} on "
                f"everything"
                f"\nwith subsumption (as `explore` runs): {r['subsumption']['states']:,} states "
                f"visited, {r['subsumption']['subsumed']:,} skipped, in "
                f"{r['subsumption']['cpu_seconds']:.2f} CPU s: {r['subsumption']['speedup']:.2f}x "
                f"faster to the same verdicts; the full scope's states per CPU s of it over the "
                f"BFS: {r['subsumption']['covered_ratio']:.3f}"
                + ("" if "larger_scope" not in r else
                   "\nexplore (default scope, {instances} instances, {policy}, a fresh process): "
                   "{states:,} states, {transitions:,} transitions in {wall_seconds:.1f} s wall, "
                   "peak memory {peak_rss_mb:.0f} MB".format(**r["larger_scope"])))
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
