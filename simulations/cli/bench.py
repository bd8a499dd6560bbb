"""`python -m simulations bench WHAT`: performance figures (printed, never asserted)."""
from __future__ import annotations

import argparse
import importlib
import json

import model

from ..bench_scopes import DEFAULT_MAX_STATES, LARGER_SCOPES
from .arguments import parse_policies
from .errors import UsageError

TARGETS = {"des": "model transitions per CPU second in the DES engine vs bare SimPy timeouts",
           "explore": "distinct states per CPU second of the explorer on the default scope vs "
                      "a plain Python BFS of the same graph (and grid yardsticks)",
           "sweep": "sweep runs per second with 1 and 2 local workers, parallel efficiency",
           "scopes": "states, wall time and peak memory of the explorer on larger scopes "
                     "(more clients, restarts, instances, drops), each in a fresh process",
           "por": "transitions a sleep-set partial-order reduction could skip on the default "
                  "scope (any action sleeping, or only never-fair ones, as liveness needs)",
           "history": "CPU time of a past version's explorer on the default scope against "
                      "this checkout's, each in fresh processes, alternating"}


def add_parser(verbs) -> None:
    p = verbs.add_parser("bench", help="measure performance (figures and ratios)",
                         description="Measure performance. Targets: " + "; ".join(
                             f"{k}: {v}" for k, v in TARGETS.items()))
    p.add_argument("target", metavar="TARGET", help=", ".join(TARGETS))
    p.add_argument("--policy", default=None,
                   help="des, explore, scopes, por, history: the policy the benchmark runs "
                        "(default strict)")
    p.add_argument("--duration", type=float, default=None,
                   help="des: simulated seconds of the benchmark's replication (default 3600)")
    p.add_argument("--instances", type=int, default=None, metavar="N",
                   help="explore: also explore the default scope with N instances in a fresh "
                        "process and report its wall time and peak memory; por: measure the "
                        "default scope with N (1 or 2) instances (default 1)")
    p.add_argument("--repeats", type=int, default=None, metavar="N",
                   help="des, explore: measure the engine and its yardstick back to back N "
                        "times and report the median ratio; history: measure both versions N "
                        "times and report the median speedup (default 5)")
    p.add_argument("--rev", default=None, metavar="REV",
                   help="history: the past commit (any git revision) to measure against "
                        "(default the last one before the speed work began)")
    p.add_argument("--scope", action="append", default=None, metavar="NAME",
                   help="scopes: measure only this one (repeatable); names: " + ", ".join(
                       repr(name) for name, _ in LARGER_SCOPES))
    p.add_argument("--max-states", type=int, default=None, metavar="N",
                   help="scopes: stop each search after N distinct states (default "
                        f"{DEFAULT_MAX_STATES:,}; the row then says it stopped)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from .. import bench, bench_explore
    if args.target not in TARGETS:
        raise UsageError(f"unknown benchmark {args.target!r}; valid: {', '.join(TARGETS)}")
    if args.duration is not None and args.target != "des":
        raise UsageError("--duration goes with `bench des` only")
    if args.duration is not None and not args.duration > 0:
        raise UsageError(f"--duration must be > 0, got {args.duration}")
    if args.policy is not None and args.target == "sweep":
        raise UsageError("--policy goes with `bench des`, `bench explore`, `bench scopes`, "
                         "`bench por` or `bench history` (`bench sweep` runs the default "
                         "sweep's every policy)")
    args.policy = args.policy or "strict"
    args.duration = args.duration or 3600.0
    parse_policies(args.policy, one="a benchmark")
    if args.instances is not None and \
            (args.target not in ("explore", "por") or args.instances < 1):
        raise UsageError("--instances N (N >= 1) goes with `bench explore` or `bench por`")
    if args.target == "por" and args.instances is not None and args.instances > 2:
        raise UsageError(f"bench por measures 1 or 2 instances, got {args.instances}: it "
                         "explores without symmetry reduction and keeps every state (2 "
                         "instances are 1.65M states, 4 minutes and 3.6 GB; 3 are many times "
                         "that)")
    if args.repeats is not None and \
            (args.target not in ("des", "explore", "history") or args.repeats < 1):
        raise UsageError("--repeats N (N >= 1) goes with `bench des`, `bench explore` or "
                         "`bench history`")
    if args.rev is not None and args.target != "history":
        raise UsageError("--rev goes with `bench history` only")
    if (args.scope is not None or args.max_states is not None) and args.target != "scopes":
        raise UsageError("--scope and --max-states go with `bench scopes` only")
    if args.max_states is not None and args.max_states < 1:
        raise UsageError(f"--max-states must be >= 1, got {args.max_states}")
    known = [name for name, _ in LARGER_SCOPES]
    unknown = [name for name in args.scope or () if name not in known]
    if unknown:
        raise UsageError(f"unknown scope {unknown[0]!r}; valid: {', '.join(known)}")
    if args.target == "scopes":
        return _scopes(args)
    if args.target == "por":
        return _por(args)
    if args.target == "history":
        return _history(args)
    repeats = {} if args.repeats is None else {"repeats": args.repeats}
    result = {"des": lambda: bench.des(args.policy, args.duration, **repeats),
              "explore": lambda: bench_explore.explore_default(args.policy, **repeats),
              "sweep": bench.sweep}[args.target]()
    if args.instances is not None:
        result["larger_scope"] = bench_explore.explore_scope(args.policy, args.instances)
    result["model"] = model.BUILD    # compiled or from source (MCP_MODEL_PURE=1 forces source)
    builds = f"model: {model.BUILD}"
    if args.target in ("des", "explore"):      # the engine's own compiled group, or source
        engine = importlib.import_module(f"simulations.{args.target}")
        result["engine"] = engine.BUILD
        builds += f"; {args.target} engine: {engine.BUILD}"
    print(json.dumps(result, sort_keys=True) if args.json
          else builds + "\n" + (bench_explore.text(result) if args.target == "explore"
                                 else bench.text(args.target, result)))
    return 0


def _por(args: argparse.Namespace) -> int:
    from .. import bench_por
    result = bench_por.por(args.policy, args.instances or 1)
    result["model"] = model.BUILD
    print(json.dumps(result, sort_keys=True) if args.json
          else f"model: {model.BUILD}\n" + bench_por.text(result))
    return 0


def _scopes(args: argparse.Namespace) -> int:
    from .. import bench_scopes
    max_states = args.max_states or DEFAULT_MAX_STATES
    rows = bench_scopes.scopes(args.policy, max_states, args.scope)
    if args.json:
        print(json.dumps({"model": model.BUILD, "policy": args.policy,
                          "max_states": max_states, "scopes": rows}, sort_keys=True))
    else:
        print(f"model: {model.BUILD}; policy {args.policy}\n" +
              bench_scopes.text(rows, max_states))
    return 0


def _history(args: argparse.Namespace) -> int:
    from .. import bench_history
    try:
        result = bench_history.history(args.rev, args.policy, args.repeats or 5)
    except bench_history.HistoryError as exc:
        raise UsageError(str(exc)) from exc
    print(json.dumps(result, sort_keys=True) if args.json else bench_history.text(result))
    return 0
