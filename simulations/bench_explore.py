"""`bench explore`: the explorer's distinct states per CPU second beside plain Python searches.

Figures are CPU seconds of this process (time.process_time); every search runs with the
cyclic garbage collector paused, as `explore` and `verify` run searches. The yardstick the
headline `ratio` is over is the same-graph BFS (`simulations.yardstick_graph`): the scope's own
search with the model taken out. The grid yardsticks (`simulations.yardstick`) are measured
beside it, in the same rounds.
"""
from __future__ import annotations

import time
from typing import Dict

from .bench import median_pair


def explore_default(policy: str = "strict", repeats: int = 5) -> Dict[str, object]:
    """Distinct states per CPU second of the explorer on the default scope (one process, one
    core), beside plain Python BFS yardsticks in the same process, `repeats` back-to-back
    rounds; the figures are those of the round with the median `ratio` (`ratios`: every
    round's).

    - `baseline_states_per_s`, `ratio`: the same-graph BFS (set up once, before the rounds),
      which searches the scope's own graph, its states as nested tuples, each successor built
      by rebuilding the tuples the model's transition changed (`baseline_states`,
      `baseline_transitions` and `baseline_depth` are the search's; `same_graph` gives per
      transition the tuples it rebuilds, the scalars it sets and the parts it takes whole).
    - `grid_baseline_states_per_s`, `grid_ratio` (`grid_ratios`: every round's): a BFS searched
      to the end of a grid of about as many states with the same successors per state, each
      moving one scalar, over nested tuples shaped like the reached state of median size
      (`grid_width` scalars, `grid_nesting` deep; `reached_scalars` gives the spread);
      `flat_baseline_states_per_s`, `flat_ratio`: the same over one flat tuple.
    - `truncated_*`, `initial_shape_*`: searches of an unbounded tree cut off at as many
      states (most of them leaves never expanded), shaped like the median state and like the
      initial state, the emptiest there is.
    - `model_bfs_*`, `model_ratio` (over the same-graph BFS), `explorer_over_model`: the
      search doing only what the model demands (`ceilings.model_bfs`), the ceiling of `ratio`.
    - `subsumption`: the search as `explore` runs it, skipping states whose budgets a reached
      state covers: its states, those skipped, its CPU seconds, `speedup` (the full search's
      CPU time over its) and `covered_ratio` (the full scope's states per CPU second of it
      over the same-graph BFS: the rate at which it decides the scope, not a per-state rate).
    - `model_split`: where the model-alone search's time goes per state (measured once after
      the rounds).

    The headline figures are of the search that visits every state (`subsumption=False`)."""
    from model import initial_state

    from . import yardstick
    from .ceilings import model_bfs, model_split
    from .explore.scope import Scope
    from .explore.search import explore
    from .runtime import cyclic_gc_paused
    from .yardstick_graph import ScopeGraph, same_graph_bfs
    state0 = initial_state(Scope().system)
    with cyclic_gc_paused():
        shape, spread = yardstick.typical_state(Scope(), policy)
        graph = ScopeGraph.build(Scope(), policy)
    width = yardstick.scalars(shape)
    rounds = []
    for _ in range(repeats):
        with cyclic_gc_paused():
            start = time.process_time()
            result = explore(Scope(), policy, subsumption=False)
            cpu = time.process_time() - start
            start = time.process_time()
            reduced = explore(Scope(), policy)
            reduced_cpu = time.process_time() - start
            same = same_graph_bfs(graph)
            branching = result.transitions / max(result.states, 1)
            grid = yardstick.exhaustive_bfs(result.states, branching, shape)
            flat = yardstick.exhaustive_bfs(result.states, branching, (0,) * width)
            truncated = yardstick.truncated_bfs(result.states, branching, shape)
            initial = yardstick.truncated_bfs(result.states, branching, state0)
            model_states, model_cpu = model_bfs(Scope(), policy)
        rate = result.states / cpu
        model_rate = model_states / model_cpu
        rounds.append({
            "scope": "default", "policy": policy, "states": result.states,
            "transitions": result.transitions, "depth": result.depth, "cpu_seconds": cpu,
            "distinct_states_per_s": rate, "transitions_per_s": result.transitions / cpu,
            "baseline_states_per_s": same["states_per_s"],
            "baseline_states": same["states"], "baseline_transitions": same["transitions"],
            "baseline_depth": same["depth"], "same_graph": dict(graph.shape),
            "ratio": rate / same["states_per_s"],
            "grid_baseline_states_per_s": grid["states_per_s"],
            "grid_baseline_states": grid["states"],
            "grid_baseline_transitions": grid["transitions"],
            "grid_baseline_depth": grid["depth"],
            "grid_width": width, "grid_nesting": yardstick.nesting(shape),
            "reached_scalars": spread,
            "grid_ratio": rate / grid["states_per_s"],
            "flat_baseline_states_per_s": flat["states_per_s"],
            "flat_ratio": rate / flat["states_per_s"],
            "truncated_baseline_states_per_s": truncated["states_per_s"],
            "truncated_ratio": rate / truncated["states_per_s"],
            "initial_shape_baseline_states_per_s": initial["states_per_s"],
            "initial_shape_width": spread["initial"],
            "initial_shape_nesting": yardstick.nesting(state0),
            "initial_shape_ratio": rate / initial["states_per_s"],
            "model_bfs_states": model_states, "model_bfs_states_per_s": model_rate,
            "model_ratio": model_rate / same["states_per_s"],
            "explorer_over_model": rate / model_rate,
            "subsumption": {"states": reduced.states, "subsumed": reduced.subsumed,
                            "transitions": reduced.transitions, "cpu_seconds": reduced_cpu,
                            "speedup": cpu / reduced_cpu,
                            "covered_ratio": result.states / reduced_cpu
                            / same["states_per_s"]}})
    chosen = median_pair(rounds)
    chosen["grid_ratios"] = [round(r["grid_ratio"], 4) for r in rounds]
    chosen["model_split"] = model_split(Scope(), policy)
    return chosen


def explore_scope(policy: str, instances: int) -> Dict[str, object]:
    """Wall time and peak memory (resident set) of `explore --instances N` on the default
    scope, run in a fresh process so that nothing else this process holds is counted."""
    from .bench_scopes import measure_scope
    return {"instances": instances,
            **measure_scope(("--instances", str(instances)), policy)}


def text(r: Dict[str, object]) -> str:
    """`explore_default`'s figures as `bench explore` prints them."""
    g, split, sub = r["same_graph"], r["model_split"], r["subsumption"]
    lines = [
        f"explore (default scope, {r['policy']}): {r['states']:,} states, "
        f"{r['transitions']:,} transitions in {r['cpu_seconds']:.2f} CPU s = "
        f"{r['distinct_states_per_s']:,.0f} distinct states/s; a plain Python BFS of the "
        f"scope's own graph ({r['baseline_states']:,} states, {r['baseline_transitions']:,} "
        f"transitions, {r['baseline_depth']} levels) over its states as nested tuples, each "
        f"successor built by rebuilding the tuples the model's transition changed "
        f"({g['rebuilt_per_transition']:.2f} a transition; {g['scalars_per_transition']:.2f} "
        f"scalars set, {g['whole_per_transition']:.2f} parts taken whole): "
        f"{r['baseline_states_per_s']:,.0f}/s, ratio {r['ratio']:.3f} (median of "
        f"{r['repeats']} back-to-back rounds; ratios {r['ratios']})",
        f"over a grid of {r['grid_baseline_states']:,} states with "
        f"{r['grid_baseline_transitions'] / r['grid_baseline_states']:.2f} successors per "
        f"state, each moving one scalar, over nested tuples shaped like the median reached "
        f"state ({r['grid_width']} scalars, {r['grid_nesting']} deep; reached states hold "
        f"{r['reached_scalars']['min']}-{r['reached_scalars']['max']}): "
        f"{r['grid_baseline_states_per_s']:,.0f}/s, ratio {r['grid_ratio']:.3f} (every "
        f"round: {r['grid_ratios']}); over one flat tuple "
        f"{r['flat_baseline_states_per_s']:,.0f}/s, ratio {r['flat_ratio']:.3f}",
        f"the earlier yardsticks, an unbounded tree cut off at as many states, most of them "
        f"leaves never expanded: shaped like the median state "
        f"{r['truncated_baseline_states_per_s']:,.0f}/s, ratio {r['truncated_ratio']:.3f}; "
        f"like the initial state ({r['initial_shape_width']} scalars, "
        f"{r['initial_shape_nesting']} deep) {r['initial_shape_baseline_states_per_s']:,.0f}/s, "
        f"ratio {r['initial_shape_ratio']:.3f}",
        f"the model alone (enabled actions, apply, fingerprint, a visited set; "
        f"{r['model_bfs_states']:,} states): {r['model_bfs_states_per_s']:,.0f}/s = ratio "
        f"{r['model_ratio']:.3f} over the same-graph BFS, the ceiling of any search of this "
        f"model; the explorer runs at {r['explorer_over_model']:.2f} of it",
        f"its time per state, in microseconds: enabled actions {split['enabled_us']:.2f}, "
        f"transitions {split['successor_us']:.2f} ({split['transitions_per_state']:.2f} per "
        f"state), fingerprints {split['fingerprint_us']:.2f}, budgets "
        f"{split['budgets_us']:.2f}, the search's own {split['rest_us']:.2f}: "
        f"{split['search_us']:.2f} in all, where the same-graph BFS spends "
        f"{1e6 / r['baseline_states_per_s']:.2f} on everything and the grid "
        f"{1e6 / r['grid_baseline_states_per_s']:.2f}",
        f"with subsumption (as `explore` runs): {sub['states']:,} states visited, "
        f"{sub['subsumed']:,} skipped, in {sub['cpu_seconds']:.2f} CPU s: "
        f"{sub['speedup']:.2f}x faster to the same verdicts; the full scope's states per CPU s "
        f"of it over the same-graph BFS: {sub['covered_ratio']:.3f}"]
    if "larger_scope" in r:
        lines.append("explore (default scope, {instances} instances, {policy}, a fresh "
                     "process): {states:,} states, {transitions:,} transitions in "
                     "{wall_seconds:.1f} s wall, peak memory {peak_rss_mb:.0f} MB"
                     .format(**r["larger_scope"]))
    return "\n".join(lines)
