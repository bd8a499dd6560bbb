"""`python -m simulations explore`: every interleaving in a bounded scope, shortest traces."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from model import POLICIES, ConfigError, SystemConfig
from model.policies import STATELESS_ROWS, no_resumption

from ..clients import AUTO, CONFIG, PROFILES, resolve_client, unknown_client, with_client
from ..des.config import apply_overrides
from ..explore.scope import BUDGET_NAMES, Scope, default_system
from ..inputs import check_file_out, check_folder_out
from ..runtime import cyclic_gc_paused
from .arguments import checked, parse_policies, user_gate
from .errors import UsageError


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
                     "(default strict), or a stateless transport (stateless, "
                     "stateless+idempotency, tasks: the scope on that transport, no gate; as "
                     "--set system.transport=...)")
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
    p.add_argument("--client", default=CONFIG, metavar="PROFILE",
                   help=f"the clients: {CONFIG} (default: the scope's on_404/on_409, a spec "
                        f"client unless --set changes them), {AUTO} (as the verification "
                        "matrix: the MCP Python SDK client for the sdk policy, a spec client "
                        f"otherwise) or a profile ({', '.join(PROFILES)})")
    p.add_argument("--no-symmetry", action="store_true", help="turn symmetry reduction off")
    p.add_argument("--no-subsumption", action="store_true",
                   help="visit every state, also those whose fault budgets a reached state "
                        "with the same model state covers (same verdicts, more states)")
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
    gate = args.gate or args.policy or "strict"
    if gate in STATELESS_ROWS:
        if system.get("transport", gate) != gate:
            raise ConfigError("transport", f"--policy {gate} runs the scope on that transport, "
                                           f"and --set names {system['transport']!r}")
        system["transport"] = gate
    elif system.get("transport", "sessions") != "sessions" and (args.gate or args.policy):
        raise ConfigError("transport", f"{gate!r} decides resumptions, and system.transport = "
                                       f"{system['transport']!r} has none: drop "
                                       f"{'--gate' if args.gate else '--policy'}")
    deployment = with_client(SystemConfig.from_mapping(system), resolve_client(args.client, gate))
    return Scope(system=deployment, **budgets)


def run(args: argparse.Namespace) -> int:
    from ..explore.report import exploration_json, exploration_text
    from ..explore.search import explore
    problem = unknown_client(args.client)
    if problem is not None:
        raise UsageError(f"--client: {problem}")
    try:
        scope = build_scope(args)
    except ConfigError as exc:
        raise UsageError(f"bad scope: {exc}") from exc
    if args.max_states is not None and args.max_states < 1:
        raise UsageError("--max-states must be >= 1")
    policy = (parse_policies(args.policy, one="explore (verify takes several)")
              or ["strict"])[0]
    if args.gate:
        policy = user_gate(args.gate)
    if scope.system.stateless:
        policy = no_resumption(scope.system.transport)
    if args.graphml is not None:
        checked(check_file_out, args.graphml, "--graphml")
    if args.figures is not None:
        checked(check_folder_out, args.figures, "--figures")
    graph = args.graphml is not None
    with cyclic_gc_paused():
        result = explore(scope, policy, symmetry=not args.no_symmetry,
                         max_states=args.max_states, graph=graph,
                         subsumption=not args.no_subsumption)
    verdicts = result.verdicts()
    files = []
    if args.graphml is not None:
        from ..explore.graph import write_graphml  # networkx: only when asked
        write_graphml(result, args.graphml)
        files.append(str(args.graphml))
    if args.figures is not None:
        from ..explore.diagram import sequence_diagram  # matplotlib: only when asked
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
