"""`python -m simulations scenario`: replay the seed incidents under a policy or a user's gate."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..clients import PROFILES, unknown_client
from ..incidents import matrix_table, record, trace, write_results
from ..inputs import check_folder_out
from ..render import narrate
from ..scenarios import INCIDENT_ROWS, SCENARIOS
from ..script import run_script
from .arguments import checked, parse_policies, user_gate
from .errors import UsageError


def add_parser(verbs) -> None:
    p = verbs.add_parser(
        "scenario", help="replay a seed incident step by step under a policy",
        description="Replay a scripted incident (or --all of them) on the model. With NAME and "
                    "--policy: a step-by-step narrative and the properties violated. Without "
                    "--policy: one line per policy. With --all: the incident matrix.",
        epilog="scenarios: " + ", ".join(SCENARIOS) + ". rows: " + ", ".join(INCIDENT_ROWS)
        + " (the policies decide resumptions; a stateless transport has none: the scenario "
          "runs without sessions)")
    p.add_argument("name", nargs="?", metavar="NAME", help="scenario to replay")
    p.add_argument("--all", action="store_true",
                   help="every scenario under every policy and stateless transport")
    p.add_argument("--list", action="store_true", help="list the scenarios and exit")
    p.add_argument("--policy", help="policy name or stateless transport (stateless, "
                   "stateless+idempotency, tasks), or several separated by commas")
    p.add_argument("--gate", metavar="MODULE:FUNCTION",
                   help="your own gate (a callable (request, view) -> Decision)")
    p.add_argument("--client", default="auto", metavar="PROFILE",
                   help="the client: auto (the MCP Python SDK client for the sdk policy, a "
                        f"spec client otherwise), a profile ({', '.join(PROFILES)}) or config "
                        "(the scenario's own reactions)")
    p.add_argument("--json", action="store_true", help="machine-readable output (JSON lines)")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="with --all: also write matrix.jsonl, matrix.txt and manifest.json")
    p.set_defaults(handler=run)


def _gates(args) -> list:
    """The gates to run: the --policy names and/or --gate (with --all, a gate alone is shown
    beside the six policies); all six policies if neither is given."""
    beside = args.all and args.gate and not args.policy  # the matrix: a gate beside the six
    gates: list = list(INCIDENT_ROWS) if beside else []
    gates += parse_policies(args.policy) or []
    if args.gate:
        gates.append(user_gate(args.gate))
    return gates


def run(args: argparse.Namespace) -> int:
    if args.list:
        for s in SCENARIOS.values():
            print(f"{s.name:32s} {s.title} ({s.source})")
        return 0
    problem = unknown_client(args.client)
    if problem is not None:
        raise UsageError(f"--client: {problem}")
    if args.all == bool(args.name):
        raise UsageError("give a scenario NAME or --all (valid names: "
                         f"{', '.join(SCENARIOS)})")
    if args.name and args.name not in SCENARIOS:
        raise UsageError(f"unknown scenario {args.name!r}; valid: {', '.join(SCENARIOS)}")
    if args.out and not args.all:
        raise UsageError("--out needs --all")
    if args.out:
        checked(check_folder_out, args.out, "--out")
    gates = _gates(args) or list(INCIDENT_ROWS)
    scenarios = list(SCENARIOS.values()) if args.all else [SCENARIOS[args.name]]
    runs = [run_script(s, g, args.client) for s in scenarios for g in gates]
    single = not args.all and (args.policy or args.gate) and len(runs) == 1
    if args.json:
        for r in runs:
            data = record(r)
            if single:
                data["steps"] = trace(r)
            print(json.dumps(data, sort_keys=True))
    elif single:
        print(narrate(runs[0]))
    elif args.all:
        print(matrix_table(runs))
    else:
        for r in runs:
            violated = r.report.violated()
            text = ", ".join(f"{k}={v}" for k, v in violated.items()) or "no violation"
            decisions = ", ".join(f"{k}={v}" for k, v in sorted(r.report.decisions.items()))
            print(f"{r.gate:12s} {text:50s} decisions: {decisions}")
        print(f"\nnarrative: python -m simulations scenario {args.name} --policy P")
    if args.out:
        write_results(runs, args.out, "scenario --all")
    return 1 if any(r.gate_error for r in runs) else 0
