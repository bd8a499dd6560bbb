"""`python -m simulations bench WHAT`: performance figures (printed, never asserted)."""
from __future__ import annotations

import argparse
import json

import model

from . import bench

TARGETS = {"des": "model transitions per CPU second in the DES engine vs bare SimPy timeouts",
           "explore": "distinct states per CPU second of the explorer on the default scope",
           "sweep": "sweep runs per second with 1 and 2 local workers, parallel efficiency"}


def add_parser(verbs) -> None:
    p = verbs.add_parser("bench", help="measure performance (figures and ratios)",
                         description="Measure performance. Targets: " + "; ".join(
                             f"{k}: {v}" for k, v in TARGETS.items()))
    p.add_argument("target", metavar="TARGET", help=", ".join(TARGETS))
    p.add_argument("--policy", default="strict", help="policy the benchmark runs")
    p.add_argument("--duration", type=float, default=3600.0,
                   help="simulated seconds of the DES benchmark run")
    p.add_argument("--instances", type=int, default=None, metavar="N",
                   help="explore: also explore the default scope with N instances in a fresh "
                        "process and report its wall time and peak memory")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(handler=run)


def _text(target: str, r: dict) -> str:
    if target == "sweep":
        return (f"sweep ({r['runs']} runs): {r['runs_per_s_1_workers']:.2f} runs/s on 1 "
                f"worker, {r['runs_per_s_2_workers']:.2f} on 2; efficiency "
                f"{r['parallel_efficiency']:.2f} (this machine's two-process ceiling "
                f"{r['machine_ceiling']:.2f})")
    if target == "explore":
        return (f"explore (default scope, {r['policy']}): {r['states']:,} states, "
                f"{r['transitions']:,} transitions in {r['cpu_seconds']:.2f} CPU s = "
                f"{r['distinct_states_per_s']:,.0f} distinct states/s; a plain Python BFS "
                f"with the same branching over nested tuples of the state's depth "
                f"({r['baseline_nesting']}) and scalars ({r['baseline_width']}) "
                f"{r['baseline_states_per_s']:,.0f}/s, ratio {r['ratio']:.3f}; over one flat "
                f"tuple {r['flat_baseline_states_per_s']:,.0f}/s, ratio {r['flat_ratio']:.3f}"
                + ("" if "larger_scope" not in r else
                   "\nexplore (default scope, {instances} instances, {policy}, a fresh process): "
                   "{states:,} states, {transitions:,} transitions in {wall_seconds:.1f} s wall, "
                   "peak memory {peak_rss_mb:.0f} MB".format(**r["larger_scope"])))
    return (f"DES ({r['config']}, {r['policy']}, {r['simulated_seconds']:g} simulated s): "
            f"{r['transitions']} transitions in {r['cpu_seconds']:.2f} CPU s = "
            f"{r['transitions_per_cpu_s']:,.0f}/s; bare SimPy {r['timeouts_per_cpu_s']:,.0f} "
            f"timeouts/s; ratio {r['ratio']:.3f}")


def run(args: argparse.Namespace) -> int:
    from .cli import UsageError
    if args.target not in TARGETS:
        raise UsageError(f"unknown benchmark {args.target!r}; valid: {', '.join(TARGETS)}")
    if args.duration <= 0:
        raise UsageError("--duration must be > 0")
    if args.policy not in model.POLICIES:
        raise UsageError(f"unknown policy {args.policy!r}; valid: {', '.join(model.POLICIES)}")
    if args.instances is not None and (args.target != "explore" or args.instances < 1):
        raise UsageError("--instances N (N >= 1) goes with `bench explore` only")
    result = {"des": lambda: bench.des(args.policy, args.duration),
              "explore": lambda: bench.explore_default(args.policy),
              "sweep": bench.sweep}[args.target]()
    if args.instances is not None:
        result["larger_scope"] = bench.explore_scope(args.policy, args.instances)
    result["model"] = model.BUILD    # compiled or from source (MCP_MODEL_PURE=1 forces source)
    print(json.dumps(result, sort_keys=True) if args.json
          else f"model: {model.BUILD}\n" + _text(args.target, result))
    return 0
