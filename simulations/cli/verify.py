"""`python -m simulations verify`: the verification matrix over a declared deployment space."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from model import NAMED_GATES, POLICIES, ConfigError
from model.policies import STATELESS_ROWS

from ..inputs import InputFileError, check_out
from ..verify.matrix import cell_json, failing, summary, write_outputs
from ..verify.space import load
from .arguments import checked, parse_policies, user_gate
from .errors import UsageError

SPACES = Path(__file__).resolve().parent.parent / "spaces"
DEFAULT_SPACE = SPACES / "matrix.toml"


def add_parser(verbs) -> None:
    p = verbs.add_parser(
        "verify", help="explore every deployment of a space under every gate: the verdict matrix",
        description="Explore every (gate, deployment) cell of a declared space exhaustively "
                    "within its fault scope and give every property a verdict: holds (complete "
                    "search), violated (shortest trace) or unknown (a budget was hit or the gate "
                    "raised). Writes verdicts.csv, cells.jsonl, VERIFY.md and manifest.json. "
                    "Finished cells are kept in DIR/cells/ and skipped when the same command "
                    "runs again, so a killed run resumes.",
        epilog=f"default space: {DEFAULT_SPACE.relative_to(SPACES.parent.parent)}; "
               f"a reduced one for tests: "
               f"{(SPACES / 'reduced.toml').relative_to(SPACES.parent.parent)}")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--policy", metavar="P[,P...]",
                     help=f"verify these policies only ({', '.join(POLICIES)})")
    who.add_argument("--gate", action="append", metavar="MODULE:FUNCTION",
                     help="verify your own gate (repeatable); it must be importable in the "
                          "workers too")
    p.add_argument("--space", type=Path, default=DEFAULT_SPACE, metavar="FILE.toml",
                   help="the deployment space (default: %(default)s)")
    p.add_argument("--workers", type=int, default=2, metavar="N",
                   help="local worker processes (default 2)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="run the cells on this Dask scheduler instead of local processes")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="results folder (default: results/quick/verification/<space name>; the "
                        "committed matrix is written only by `make verification`)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object per (gate, deployment) cell")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=run)


def _gates(args) -> list:
    """The gates the arguments name (None: the space's own), validated."""
    if args.policy is not None:
        return parse_policies(args.policy)
    for path in args.gate or ():
        user_gate(path)
    return list(args.gate) if args.gate else None


def run(args: argparse.Namespace) -> int:
    from ..sweep.execute import check_scheduler
    from ..verify.run import run_space
    gates = _gates(args)
    try:
        space = load(args.space, gates)
    except InputFileError as exc:
        raise UsageError(str(exc)) from None
    except ConfigError as exc:
        raise UsageError(f"bad space {args.space}: {exc}") from exc
    for gate in space.gates:
        if gate not in NAMED_GATES and gate not in STATELESS_ROWS:
            user_gate(gate, f"space {args.space}: ")
    if args.workers < 1:
        raise UsageError("--workers must be >= 1")
    out = args.out or Path("results/quick/verification") / args.space.stem
    checked(check_out, out, "verify")
    if args.scheduler:
        checked(check_scheduler, args.scheduler)
    chosen = ([f"--policy {args.policy}"] if args.policy else []) + \
        [f"--gate {gate}" for gate in args.gate or ()]
    command = " ".join(["python -m simulations verify", f"--space {args.space}",
                        f"--out {out}"] + chosen)
    result = run_space(space, out, workers=args.workers, scheduler=args.scheduler,
                       progress=not (args.quiet or args.json))
    records = write_outputs(space, result, out, command)
    if args.json:
        for record in records:
            print(json.dumps(cell_json(record), sort_keys=True))
        return 0
    print(f"{result['cells']} cells ({result['ran']} explored, {result['skipped']} already "
          f"done) in {result['wall_seconds']:.0f} s; wrote {out}/VERIFY.md, verdicts.csv, "
          "cells.jsonl, manifest.json")
    for gate, s in summary(records).items():
        print(f"  {gate:40s} clean {s['clean']:4d}/{s['cells']:<4d} (excused {s['excused']:3d}) "
              f"failing {s['failing']:4d} unknown {s['unknown']:4d}")
    bad = [r for r in records if r["policy"] == "strict" and failing(r)]
    if bad:
        print(f"strict fails in {len(bad)} deployment(s) no named exception covers; see VERIFY.md")
    return 0
