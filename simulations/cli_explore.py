"""`python -m simulations explore`: every interleaving in a bounded scope, shortest traces."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from model import POLICIES, ConfigError, SystemConfig

from .des.config import apply_overrides
from .explore.scope import BUDGET_NAMES, Scope, default_system
from .explore.search import PROPERTIES, explore
from .explore.diagram import sequence_diagram
from .explore.graph import forever_waiting, write_graphml
from .explore.trace import narrate_trace, trace_json
from .gates import GateLoadError, load_gate


def add_parser(verbs) -> None:
    p = verbs.add_parser(
        "explore", help="explore every interleaving in a bounded scope (shortest traces)",
        description="Breadth-first exploration of the model within a scope: every order of "
                    "the enabled actions, each fault within its budget. Reports each property "
                    "with its shortest counterexample, the 'sometimes' checks that show the "
                    "scope is not vacuous, and per-action coverage.",
        epilog="default scope: 2 clients, 1 instance, 1-message calls, shared store and "
               "shared buffer (capacity 2) keyed by event id, global ids, budgets restarts=1 "
               "client_restarts=1 foreign_cursors=1 sessions=3 (others 0)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--policy", default=None, help=f"one of {', '.join(POLICIES)} "
                     "(default strict)")
    who.add_argument("--gate", metavar="MODULE:FUNCTION", help="your own gate")
    system = default_system()
    p.add_argument("--clients", type=int, default=system.clients)
    p.add_argument("--instances", type=int, default=system.instances)
    p.add_argument("--messages", type=int, default=system.messages_per_session,
                   help="messages per session (calls of --messages-per-call)")
    p.add_argument("--messages-per-call", type=int, default=system.messages_per_call)
    scope = Scope()
    for name in BUDGET_NAMES:
        p.add_argument(f"--{name.replace('_', '-')}", type=int, default=getattr(scope, name),
                       metavar="N", help=f"budget of {name.replace('_', ' ')}")
    p.add_argument("--set", action="append", default=[], metavar="system.KEY=VALUE",
                   help="change the deployment, e.g. system.lb=sticky")
    p.add_argument("--dedupe", action="store_true", help="clients dedupe by event id")
    p.add_argument("--no-symmetry", action="store_true", help="turn symmetry reduction off")
    p.add_argument("--max-states", type=int, metavar="N", help="stop after N distinct states")
    p.add_argument("--liveness", action="store_true",
                   help="keep the state graph (small scopes) and check stall as liveness with "
                        "strongly connected components")
    p.add_argument("--graphml", type=Path, metavar="PATH",
                   help="write the state graph as GraphML, counterexample paths marked "
                        "(implies --liveness)")
    p.add_argument("--figures", type=Path, metavar="DIR",
                   help="write a sequence diagram (PNG and SVG) of each counterexample")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=run)


def build_scope(args: argparse.Namespace) -> Scope:
    """The scope the arguments describe; ConfigError names what is wrong."""
    system = dict(default_system().as_dict(), clients=args.clients, instances=args.instances,
                  messages_per_session=args.messages, messages_per_call=args.messages_per_call,
                  client_dedupe=args.dedupe)
    for item in args.set:
        if not item.startswith("system."):
            raise ConfigError(item.partition("=")[0], "explore --set takes system.KEY=VALUE")
    system.update(apply_overrides({"system": {}}, args.set)["system"])
    budgets = {name: getattr(args, name) for name in BUDGET_NAMES}
    return Scope(system=SystemConfig.from_mapping(system), **budgets)


def run(args: argparse.Namespace) -> int:
    from .cli import UsageError
    try:
        scope = build_scope(args)
    except ConfigError as exc:
        raise UsageError(f"bad scope: {exc}") from exc
    if args.policy is not None and args.policy not in POLICIES:
        raise UsageError(f"unknown policy {args.policy!r}; valid: {', '.join(POLICIES)}")
    if args.max_states is not None and args.max_states < 1:
        raise UsageError("--max-states must be >= 1")
    policy = args.policy or "strict"
    if args.gate:
        try:
            policy = load_gate(args.gate)
        except GateLoadError as exc:
            raise UsageError(str(exc)) from exc
    graph = args.liveness or args.graphml is not None
    result = explore(scope, policy, symmetry=not args.no_symmetry, max_states=args.max_states,
                     graph=graph)
    props = {}
    for name in PROPERTIES:
        found = result.violations.get(name)
        props[name] = {"holds": found is None,
                       "trace": trace_json(scope, policy, found.actions) if found else []}
    waiting = forever_waiting(result) if graph else None
    if graph:
        props["stall_liveness"] = {"holds": waiting is None,
                                   "trace": trace_json(scope, policy, waiting) if waiting else []}
    files = []
    if args.graphml is not None:
        write_graphml(result, args.graphml)
        files.append(str(args.graphml))
    if args.figures is not None:
        for name, found in result.violations.items():
            files.extend(str(p) for p in sequence_diagram(
                scope, policy, found.actions, f"{result.gate}: shortest trace violating {name}",
                args.figures / f"{name}"))
    if args.json:
        print(json.dumps({
            "policy": result.gate, "scope": scope.as_dict(), "states": result.states,
            "transitions": result.transitions, "depth": result.depth,
            "seconds": round(result.seconds, 3), "complete": result.complete,
            "symmetry": result.symmetry, "properties": props, "sometimes": result.sometimes,
            "coverage": dict(sorted(result.coverage.items())), "files": files,
            "gate_error": None if result.gate_error is None else {
                "error": result.gate_error.detail,
                "trace": trace_json(scope, policy, result.gate_error.actions[:-1])
                + [{"step": len(result.gate_error.actions),
                    "action": repr(result.gate_error.actions[-1]), "error": True}]},
        }, sort_keys=True))
        return 0
    print(f"explored {result.states:,} distinct states, {result.transitions:,} transitions, "
          f"depth {result.depth}, in {result.seconds:.1f} s under {result.gate}"
          f"{'' if result.complete else ' (cut short by --max-states: verdicts are partial)'}")
    for name in PROPERTIES:
        found = result.violations.get(name)
        verdict = "holds" if found is None else \
            f"VIOLATED (shortest trace: {len(found.actions)} steps; {found.detail})"
        print(f"  {name:24s} {verdict}")
    if graph:
        print(f"  {'stall_liveness':24s} " + ("holds" if waiting is None else
              f"VIOLATED (a client can wait forever; shortest path: {len(waiting)} steps)"))
    vacuous = result.vacuous()
    print("sometimes: " + ", ".join(f"{k}={'yes' if v else 'NO'}"
                                    for k, v in result.sometimes.items()))
    if vacuous:
        print(f"  the scope never reaches: {', '.join(vacuous)} (verdicts say nothing about them)")
    print("coverage: " + ", ".join(f"{k}={v}" for k, v in sorted(result.coverage.items())))
    if result.gate_error is not None:
        print(f"\nGATE ERROR after {len(result.gate_error.actions) - 1} steps: "
              f"{result.gate_error.detail}")
        print(narrate_trace(scope, policy, result.gate_error.actions[:-1]))
    for name, found in result.violations.items():
        print(f"\n# shortest trace violating {name}")
        print(narrate_trace(scope, policy, found.actions))
    if waiting:
        print("\n# shortest path into a bottom strongly connected component where a client "
              "waits forever")
        print(narrate_trace(scope, policy, waiting))
    for f in files:
        print(f"wrote {f}")
    return 0
