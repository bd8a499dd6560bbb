"""`python -m simulations explore`: every interleaving in a bounded scope, shortest traces."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from model import POLICIES, ConfigError, SystemConfig
from model.properties import BY_NAME, LIVENESS

from .inputs import check_file_out, check_folder_out
from .runtime import cyclic_gc_paused
from .des.config import apply_overrides
from .explore.scope import BUDGET_NAMES, Scope, default_system
from .explore.search import (HOLDS, UNKNOWN, VIOLATED, Exploration, Verdict, explore,
                             property_kind)
from .explore.diagram import sequence_diagram
from .explore.graph import write_graphml
from .explore.trace import narrate_trace, trace_json
from .gates import GateLoadError, load_gate


def add_parser(verbs) -> None:
    p = verbs.add_parser(
        "explore", help="explore every interleaving in a bounded scope (shortest traces)",
        description="Breadth-first exploration of the model within a scope: every order of "
                    "the enabled actions, each fault within its budget. Gives every property "
                    "of the registry a verdict: holds (the search was complete), violated (with "
                    "its shortest counterexample) or unknown (a budget was hit or the gate "
                    "raised), checks stall as liveness, and reports the 'sometimes' checks that "
                    "show the scope is not vacuous, the costs reached and per-action coverage.",
        epilog="default scope: 2 clients, 1 instance, 1-message calls, shared store and "
               "shared buffer (capacity 2) keyed by event id, global ids, budgets restarts=1 "
               "client_restarts=1 compactions=1 foreign_cursors=1 sessions=3 (others 0)")
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
    p.add_argument("--graphml", type=Path, metavar="PATH",
                   help="write the state graph as GraphML, counterexample paths marked "
                        "(keeps the graph in memory: small scopes only)")
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
    try:
        if args.graphml is not None:
            check_file_out(args.graphml, "--graphml")
        if args.figures is not None:
            check_folder_out(args.figures, "--figures")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    graph = args.graphml is not None
    with cyclic_gc_paused():
        result = explore(scope, policy, symmetry=not args.no_symmetry,
                         max_states=args.max_states, graph=graph)
    verdicts = result.verdicts()
    files = []
    if args.graphml is not None:
        write_graphml(result, args.graphml)
        files.append(str(args.graphml))
    if args.figures is not None:
        for name, verdict in verdicts.items():
            if verdict.finding is not None:
                files.extend(str(p) for p in sequence_diagram(
                    scope, policy, verdict.finding.actions,
                    f"{result.gate}: shortest trace violating {name}", args.figures / name))
    if args.json:
        print(json.dumps(exploration_json(result, policy, files), sort_keys=True))
        return 0
    print(exploration_text(result, policy, files))
    return 0


def verdict_json(scope: Scope, policy, verdict: Verdict, traces: bool = True) -> dict:
    """One property's verdict as JSON: verdict, holds (None when unknown), the shortest trace
    (its length, and its steps when `traces`), the first trace length per cause, and why a
    verdict is unknown."""
    finding = verdict.finding
    out = {"verdict": verdict.verdict, "kind": property_kind(verdict.name),
           "holds": {HOLDS: True, VIOLATED: False}.get(verdict.verdict),
           "trace_length": verdict.trace_length,
           "causes": {cause: len(f.actions) for cause, f in verdict.causes.items()},
           "why": verdict.why or None}
    if traces:
        out["trace"] = trace_json(scope, policy, finding.actions) if finding else []
    return out


def exploration_json(result: Exploration, policy, files=()) -> dict:
    scope = result.scope
    return {
        "policy": result.gate, "scope": scope.as_dict(), "states": result.states,
        "transitions": result.transitions, "depth": result.depth,
        "seconds": round(result.seconds, 3), "complete": result.complete,
        "incomplete": result.incomplete, "symmetry": result.symmetry,
        "properties": {name: verdict_json(scope, policy, v)
                       for name, v in result.verdicts().items()},
        "sometimes": result.sometimes,
        "costs": {name: len(f.actions) for name, f in sorted(result.costs.items())},
        "coverage": dict(sorted(result.coverage.items())), "files": list(files),
        "gate_error": None if result.gate_error is None else {
            "error": result.gate_error.detail,
            "trace": trace_json(scope, policy, result.gate_error.actions[:-1])
            + [{"step": len(result.gate_error.actions),
                "action": repr(result.gate_error.actions[-1]), "error": True}]},
    }


def _verdict_line(verdict: Verdict) -> str:
    if verdict.verdict == HOLDS:
        return "holds"
    if verdict.verdict == UNKNOWN:
        return f"UNKNOWN ({verdict.why})"
    causes = ", ".join(f"{c}: {len(f.actions)}" for c, f in verdict.causes.items())
    return (f"VIOLATED (shortest trace: {verdict.trace_length} steps; "
            f"{verdict.finding.detail}; by cause, steps: {causes})")


def exploration_text(result: Exploration, policy, files=()) -> str:
    scope = result.scope
    out = [f"explored {result.states:,} distinct states, {result.transitions:,} transitions, "
           f"depth {result.depth}, in {result.seconds:.1f} s under {result.gate}"]
    if not result.complete:
        out.append("INCOMPLETE: " + "; ".join(result.incomplete) + ": a property without a "
                   "counterexample is unknown, not holding")
    verdicts = result.verdicts()
    for name, verdict in verdicts.items():
        judged = "" if BY_NAME[name].judged else " (diagnostic)"
        out.append(f"  {name + judged:34s} {_verdict_line(verdict)}")
    out.append("sometimes: " + ", ".join(
        f"{k}={'yes' if v else ('n/a' if v is None else 'NO')}" for k, v in
        result.sometimes.items()))
    vacuous = result.vacuous()
    if vacuous:
        out.append(f"  the scope never reaches: {', '.join(vacuous)} (verdicts say nothing "
                   "about them)")
    out.append("costs reachable (shortest trace): " + (", ".join(
        f"{k}={len(f.actions)}" for k, f in sorted(result.costs.items())) or "none"))
    out.append("coverage: " + ", ".join(f"{k}={v}" for k, v in sorted(result.coverage.items())))
    if result.gate_error is not None:
        out.append(f"\nGATE ERROR after {len(result.gate_error.actions) - 1} steps: "
                   f"{result.gate_error.detail}")
        out.append(narrate_trace(scope, policy, result.gate_error.actions[:-1]))
    for name, verdict in verdicts.items():
        if verdict.finding is None:
            continue
        what = "a client waits forever: shortest path into a bottom component of the fair " \
            "graph" if BY_NAME[name].kind == LIVENESS else f"shortest trace violating {name}"
        out.append(f"\n# {what}")
        out.append(narrate_trace(scope, policy, verdict.finding.actions))
    out.extend(f"wrote {f}" for f in files)
    return "\n".join(out)
