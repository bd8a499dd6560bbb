"""`python -m simulations conformance`: the model's predictions beside what the real MCP SDK
(and the SDK behind StrictResumptionGuard) did, case by case."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..conformance.cases import CASES
from ..conformance.outcome import Outcome
from ..conformance.predict import DEFAULT_SERVERS, DEPLOYMENTS
from ..inputs import check_folder_out
from .arguments import checked
from .errors import UsageError


def add_parser(verbs) -> None:
    p = verbs.add_parser(
        "conformance", help="check the model against the real MCP Python SDK behind nginx",
        description="Start real MCP SDK servers (uvicorn on 127.0.0.1, two behind nginx), drive "
                    "each case with raw HTTP or the SDK's own client, and print the model's "
                    "prediction beside what the real system did. Needs the 'conformance' "
                    "extra and nginx. Exit status 0: every row agrees; 1: a row disagrees or "
                    "could not be run; 2: bad arguments or missing requirements.")
    p.add_argument("--case", action="append", choices=list(CASES), metavar="CASE",
                   help=f"run only this case (repeatable); one of: {', '.join(CASES)}")
    p.add_argument("--server", action="append", choices=list(DEPLOYMENTS),
                   help="run only against this server: 'sdk' (the Python SDK with its "
                        "example-style store, model policy sdk), 'guard' (the Python SDK behind "
                        "StrictResumptionGuard, model policy strict) or 'ts' (the TypeScript "
                        "SDK with its example store, needs Node and npm ci in "
                        "simulations/conformance/ts; not run by default yet); repeatable")
    p.add_argument("--predict-only", action="store_true",
                   help="print the model's predictions only (needs neither the extra nor nginx)")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="also write DIR/conformance.json, DIR/CONFORMANCE.md and a manifest")
    p.add_argument("--logs", type=Path, metavar="DIR",
                   help="keep every process's log under DIR (default: a temporary folder, "
                        "removed when every row agrees)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..conformance import harness
    cases = args.case or list(CASES)
    servers = args.server or list(DEFAULT_SERVERS)
    for flag, path in (("--out", args.out), ("--logs", args.logs)):
        if path is not None:
            checked(check_folder_out, path, flag)
    if args.predict_only:
        rows = harness.predictions(cases, servers)
        if args.json:
            print(json.dumps(rows, indent=2))
        else:
            for row in rows:
                print(f"{row['case']:<28} {row['server']:<6} "
                      f"{harness.describe(Outcome(**row['model']))}")
        return 0
    missing = harness.missing_requirements(servers)
    if missing:
        raise UsageError("conformance needs: " + "; ".join(missing))

    def progress(row) -> None:
        if not args.json:
            mark = "agree" if row.agree else "DISAGREE"
            print(f"  {row.case} / {row.server}: {mark} ({row.seconds:.1f} s)", file=sys.stderr,
                  flush=True)

    rows = harness.run_all(cases, servers, args.logs, progress)
    env = harness.environment()
    if args.json:
        print(json.dumps({"environment": env, "rows": [r.as_dict() for r in rows]}, indent=2))
    else:
        print(harness.table(rows))
        print()
        print(harness.details(rows))
        agree = sum(r.agree for r in rows)
        print(f"\n{agree} of {len(rows)} rows agree; "
              + ", ".join(f"{k} {v}" for k, v in env.items()))
    if args.out is not None:
        from ..conformance.report import write_results
        write_results(args.out, rows, env, cases, servers)
        if not args.json:
            print(f"wrote {args.out / 'CONFORMANCE.md'}")
    return 0 if all(r.agree for r in rows) else 1
