"""`python -m simulations bench WHAT`: performance figures (printed, never asserted)."""
from __future__ import annotations

import argparse
import json

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
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from .cli import UsageError
    if args.target not in TARGETS:
        raise UsageError(f"unknown benchmark {args.target!r}; valid: {', '.join(TARGETS)}")
    if args.duration <= 0:
        raise UsageError("--duration must be > 0")
    if args.target == "sweep":
        result = bench.sweep()
        if args.json:
            print(json.dumps(result, sort_keys=True))
        else:
            print(f"sweep ({result['runs']} runs): {result['runs_per_s_1_workers']:.2f} runs/s "
                  f"on 1 worker, {result['runs_per_s_2_workers']:.2f} on 2; efficiency "
                  f"{result['parallel_efficiency']:.2f}")
        return 0
    if args.target == "explore":
        result = bench.explore_default(args.policy)
        if args.json:
            print(json.dumps(result, sort_keys=True))
        else:
            print(f"explore (default scope, {result['policy']}): {result['states']:,} states, "
                  f"{result['transitions']:,} transitions in {result['cpu_seconds']:.2f} CPU s"
                  f" = {result['distinct_states_per_s']:,.0f} distinct states/s")
        return 0
    result = bench.des(args.policy, args.duration)
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print(f"DES ({result['config']}, {result['policy']}, {result['simulated_seconds']:g} "
              f"simulated s): {result['transitions']} transitions in "
              f"{result['cpu_seconds']:.2f} CPU s = {result['transitions_per_cpu_s']:,.0f}/s")
        print(f"bare SimPy: {result['timeouts_per_cpu_s']:,.0f} timeouts/s; "
              f"ratio {result['ratio']:.3f}")
    return 0
