"""`python -m simulations conformance`: the model's predictions beside what real MCP servers
(the Python SDK, the Python SDK behind StrictResumptionGuard, the TypeScript SDK) did, case by
case; with --differential, random action sequences run in lockstep on the model and on them;
with --transport stateless, the stateless cases (the Python SDK at protocol 2026-07-28, no
session) beside the model's `stateless` transport."""
from __future__ import annotations

import argparse
import json
import sys
from functools import partial
from pathlib import Path

from model import POLICIES

from ..conformance.cases import CASES
from ..conformance.differential.findings import FINDINGS
from ..conformance.differential.scope import SCOPE
from ..conformance.outcome import Outcome
from ..conformance.predict import DEFAULT_SERVERS, DEPLOYMENTS
from ..conformance.stateless_cases import CASES as STATELESS_CASES
from ..inputs import check_folder_out
from ..scenarios import FLEET_SCENARIOS, SCENARIOS
from .arguments import checked
from .errors import UsageError


def add_parser(verbs) -> None:
    p = verbs.add_parser(
        "conformance", help="check the model against real MCP servers (Python and TypeScript "
                            "SDKs, the guard), case by case or by differential testing",
        description="Start real MCP servers (uvicorn or node on 127.0.0.1, two behind nginx "
                    "where a case needs a load balancer), drive each case with raw HTTP or the "
                    "SDK's own client, and print the model's prediction beside what the real "
                    "system did; then replay each differential finding's sequence. With "
                    "--differential, run random action sequences (Hypothesis) in lockstep on "
                    "the model and on a two-instance fleet, comparing every answer, stream and "
                    "cursor. Needs the 'conformance' extra, nginx, and Node with npm ci in "
                    "simulations/conformance/ts for the TypeScript SDK. Exit status 0: every "
                    "row agrees (or its difference is a documented server defect); 1: a row or "
                    "sequence disagrees or could not be run; 2: bad arguments or missing "
                    "requirements.")
    names = list(CASES) + list(FINDINGS)
    p.add_argument("--case", action="append", choices=names + list(STATELESS_CASES),
                   metavar="CASE",
                   help=f"run only this case or finding (repeatable); one of: {', '.join(names)}"
                        f"; with --transport stateless, one of: {', '.join(STATELESS_CASES)}")
    p.add_argument("--transport", choices=("sessions", "stateless"), default="sessions",
                   help="'sessions' (default): the resumption cases above; 'stateless': the "
                        "Python SDK in its 2026-07-28 mode (no session, a request per POST) "
                        "against the model's stateless transport: a break seen by the server, a "
                        "half-open one, a restart before and after the side effect, a failover "
                        "behind nginx round-robin; each counts the tool's executions per call. "
                        "Takes --case, --json, --predict-only, --workers, --out, --logs")
    p.add_argument("--server", action="append", choices=list(DEPLOYMENTS),
                   help="run only against this server: 'sdk' (the Python SDK with its "
                        "example-style store, model policy sdk), 'guard' (the Python SDK behind "
                        "StrictResumptionGuard, model policy strict) or 'ts' (the TypeScript "
                        "SDK with its example store, model gate sdk-typescript; needs Node and "
                        "npm ci in simulations/conformance/ts); repeatable; default: all three")
    p.add_argument("--predict-only", action="store_true",
                   help="print the model's predictions only (needs neither the extra nor nginx)")
    p.add_argument("--differential", action="store_true",
                   help="run random action sequences in lockstep on the model and the servers")
    p.add_argument("--examples", type=int, default=50, metavar="N",
                   help="--differential: sequences per server, before shrinking (default 50)")
    p.add_argument("--seed", type=int, default=0, metavar="S",
                   help="--differential: the seed of the sequences (default 0)")
    p.add_argument("--steps", type=int, default=SCOPE["steps"], metavar="N",
                   help=f"--differential: steps per sequence at most (default {SCOPE['steps']})")
    p.add_argument("--fleet", action="store_true",
                   help="run every scripted incident under every policy in lockstep on a fleet "
                        "of real SDK servers behind ResumptionGuard (the incident matrix on "
                        "real processes)")
    p.add_argument("--scenario", action="append", choices=list(SCENARIOS), metavar="NAME",
                   help="--fleet: only this scenario (repeatable); one of: "
                        + ", ".join(SCENARIOS))
    p.add_argument("--policy", action="append", choices=list(POLICIES), metavar="NAME",
                   help="--fleet: only this policy (repeatable); one of: " + ", ".join(POLICIES))
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="run N cases, fleet cells or servers' differential runs at once, each "
                        "on its own processes (default 1; the results are the same, in the same "
                        "order)")
    p.add_argument("--json", action="store_true", help="print the rows (or runs) as JSON")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="also write the results (JSON, a Markdown table, a manifest) to DIR")
    p.add_argument("--logs", type=Path, metavar="DIR",
                   help="keep every process's log under DIR (default: a temporary folder, "
                        "removed when everything agrees)")
    p.set_defaults(handler=run)


def _check(args: argparse.Namespace) -> None:
    """Every argument problem, before any process starts."""
    for flag, path in (("--out", args.out), ("--logs", args.logs)):
        if path is not None:
            checked(check_folder_out, path, flag)
    if args.workers < 1:
        raise UsageError(f"--workers must be >= 1, got {args.workers}")
    stateless = [c for c in args.case or () if c in STATELESS_CASES]
    if args.transport == "stateless":
        if args.fleet or args.differential or args.server:
            raise UsageError("--transport stateless runs the stateless cases on the Python SDK: "
                             "it takes none of --fleet, --differential, --server")
        if len(stateless) != len(args.case or ()):
            raise UsageError(f"--transport stateless: --case must be one of: "
                             f"{', '.join(STATELESS_CASES)}")
    elif stateless:
        raise UsageError(f"--case {stateless[0]} is a stateless case: it needs --transport "
                         "stateless")
    if args.fleet:
        if args.differential or args.case or args.server or args.predict_only:
            raise UsageError("--fleet runs the scripted incidents: it takes none of "
                             "--differential, --case, --server, --predict-only")
    elif args.scenario or args.policy:
        raise UsageError("--scenario and --policy need --fleet")
    if args.differential:
        if args.case or args.predict_only:
            raise UsageError("--differential runs random sequences: it takes neither --case "
                             "nor --predict-only")
        for flag, value, low in (("--examples", args.examples, 1), ("--steps", args.steps, 1),
                                 ("--seed", args.seed, 0)):
            if value < low:
                raise UsageError(f"{flag} must be >= {low}, got {value}")
    else:
        for flag, value, default in (("--examples", args.examples, 50), ("--seed", args.seed, 0),
                                     ("--steps", args.steps, SCOPE["steps"])):
            if value != default:
                raise UsageError(f"{flag} needs --differential")


def run(args: argparse.Namespace) -> int:
    from ..conformance import harness
    _check(args)
    if args.transport == "stateless":
        return _stateless(args)
    servers = args.server or list(DEFAULT_SERVERS)
    chosen = args.case or list(CASES) + list(FINDINGS)
    cases = [c for c in chosen if c in CASES]
    findings = [f for f in chosen if f in FINDINGS]
    if args.predict_only:
        rows = harness.predictions(cases, servers)
        if args.json:
            print(json.dumps(rows, indent=2))
        else:
            for row in rows:
                print(f"{row['case']:<28} {row['server']:<6} "
                      f"{harness.describe(Outcome(**row['model']))}")
        return 0
    if args.fleet:
        from ..conformance.fleet import needs_redis
        redis = any(needs_redis(SCENARIOS[name].config)   # (the fleet's deployment changes
                    for name in args.scenario or FLEET_SCENARIOS)   # no store or buffer)
        # nginx too: it is in the path
        missing = harness.missing_requirements(["guard"], redis=redis)
        if missing:
            raise UsageError("conformance needs: " + "; ".join(missing))
        return _fleet(args)
    missing = harness.missing_requirements(servers, nginx=not args.differential,
                                           cases=[] if args.differential else cases)
    if missing:
        raise UsageError("conformance needs: " + "; ".join(missing))
    if args.differential:
        return _differential(args, servers)

    def progress(row) -> None:
        if not args.json:
            mark = "agree" if row.agree else "explained" if row.settled else "DISAGREE"
            print(f"  {row.case} / {row.server}: {mark} ({row.seconds:.1f} s)", file=sys.stderr,
                  flush=True)

    rows, replays = harness.run_all(cases, servers, args.logs, progress, findings, args.workers)
    env = harness.environment()
    if args.json:
        print(json.dumps({"environment": env, "rows": [r.as_dict() for r in rows],
                          "findings": [r.as_dict() for r in replays]}, indent=2))
    else:
        if rows:
            print(harness.table(rows))
            print()
            print(harness.details(rows))
        if replays:
            print()
            print(harness.findings_table(replays))
        settled = sum(r.settled for r in rows)
        print(f"\n{settled} of {len(rows)} rows agree or are explained; "
              f"{sum(r.agree for r in replays)} of {len(replays)} findings replay in agreement; "
              + ", ".join(f"{k} {v}" for k, v in env.items()))
    if args.out is not None:
        from ..conformance.report import write_results
        write_results(args.out, rows, env, cases, servers, replays)
        if not args.json:
            print(f"wrote {args.out / 'CONFORMANCE.md'}")
    ok = all(r.settled for r in rows) and all(r.agree for r in replays)
    return 0 if ok else 1


def _sequences_done(server: str, sequences: int, steps: int) -> None:
    """A differential run's progress line, every ten sequences (printed where it runs)."""
    if sequences % 10 == 0:
        print(f"  {server}: {sequences} sequences, {steps} steps", file=sys.stderr, flush=True)


def _differential(args: argparse.Namespace, servers) -> int:
    from ..conformance.differential.machine import run_differential
    from ..conformance.harness import environment
    from ..conformance.parallel import run_units

    def finished(summary) -> None:
        if not args.json:
            print(_run_line(summary))
            for found in summary["disagreements"]:
                print(f"    {found['kind']}: {found['what']}\n      sequence: "
                      + "; ".join(found["sequence"]))
    units = [(server, args.examples, args.seed, {"steps": args.steps},
              args.logs / server if args.logs is not None else None,
              None if args.json else partial(_sequences_done, server)) for server in servers]
    runs = run_units(run_differential, units, args.workers, finished)
    if args.json:
        print(json.dumps(runs, indent=2))
    if args.out is not None:
        from ..conformance.report import write_differential
        write_differential(args.out, runs, environment())
        if not args.json:
            print(f"wrote {args.out / 'DIFFERENTIAL.md'}")
    return 0 if not any(r["disagreements"] for r in runs) else 1


def _fleet(args: argparse.Namespace) -> int:
    import tempfile

    from ..conformance.fleet import DIFFERS, run_fleet
    from ..conformance.harness import environment
    scenarios = args.scenario or list(FLEET_SCENARIOS)
    policies = args.policy or list(POLICIES)

    def progress(row) -> None:
        if not args.json:
            print(f"  {row.scenario} / {row.policy}: {row.status} ({row.seconds:.1f} s)",
                  file=sys.stderr, flush=True)
    logs = args.logs or Path(tempfile.mkdtemp(prefix="mcp-fleet-"))
    rows = run_fleet(scenarios, policies, logs, progress, args.workers)
    failed = any(r.status == DIFFERS for r in rows)
    if args.logs is None and not failed:
        import shutil
        shutil.rmtree(logs, ignore_errors=True)
    elif not args.json:
        print(f"process logs: {logs}", file=sys.stderr)
    if args.json:
        print(json.dumps({"rows": [r.as_dict() for r in rows]}, indent=2))
    else:
        from ..conformance.fleet_report import evidence, summary, table
        print(table(rows) + "\n\n" + evidence(rows) + "\n\n" + summary(rows))
    if args.out is not None:
        from ..conformance.fleet_report import write_fleet
        write_fleet(args.out, rows, environment(), scenarios, policies)
        if not args.json:
            print(f"wrote {args.out / 'FLEET.md'}")
    return 1 if failed else 0


def _stateless(args: argparse.Namespace) -> int:
    """The stateless cases: predictions only, or each run on real processes beside them."""
    from ..conformance import harness, stateless_report
    from ..conformance.stateless_cases import predict
    names = args.case or list(STATELESS_CASES)
    if args.predict_only:
        predicted = {name: predict(STATELESS_CASES[name]) for name in names}
        if args.json:
            print(json.dumps([{"case": name, "model": outcome.as_dict()}
                              for name, outcome in predicted.items()], indent=2))
        else:
            for name, outcome in predicted.items():
                print(f"{name:<32} {stateless_report.describe(outcome)}")
        return 0
    nginx = any(STATELESS_CASES[name].topology.startswith("nginx") for name in names)
    missing = harness.missing_requirements(nginx=nginx)
    if missing:
        raise UsageError("conformance needs: " + "; ".join(missing))
    from ..conformance.stateless_drills import run_all

    def progress(row) -> None:
        if not args.json:
            mark = "agree" if row.agree else "explained" if row.settled else "DISAGREE"
            print(f"  {row.case}: {mark} ({row.seconds:.1f} s)", file=sys.stderr, flush=True)
    rows = run_all(names, args.logs, progress, args.workers)
    env = harness.environment()
    if args.json:
        print(json.dumps({"environment": env, "rows": [r.as_dict() for r in rows]}, indent=2))
    else:
        print(stateless_report.table(rows) + "\n\n" + stateless_report.details(rows) + "\n\n"
              + stateless_report.summary(rows) + "; " + ", ".join(f"{k} {v}"
                                                                 for k, v in env.items()))
    if args.out is not None:
        stateless_report.write_results(args.out, rows, env, names)
        if not args.json:
            print(f"wrote {args.out / 'STATELESS-RESULTS.md'}")
    return 0 if all(r.settled for r in rows) else 1


def _run_line(summary) -> str:
    found = len(summary["disagreements"])
    return (f"{summary['server']} (model: {summary['policy']}): {summary['sequences']} "
            f"sequences, {summary['steps']} steps in {summary['seconds']} s, "
            f"{found} disagreement{'s' if found != 1 else ''}")
