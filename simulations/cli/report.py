"""`python -m simulations report DIR`: DIR/REPORT.md, ready to paste into a design doc."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..verify import MATRIX
from .errors import UsageError


def add_parser(verbs) -> None:
    p = verbs.add_parser("report", help="write DIR/REPORT.md for a run or sweep folder",
                         description="Write DIR/REPORT.md: the question, the configuration, "
                                     "rates and costs with replication-level intervals per "
                                     "policy row, the figures, for a run the explorer's "
                                     "verdicts for its deployment, and the provenance.")
    p.add_argument("folder", type=Path, metavar="DIR")
    p.add_argument("--matrix", type=Path, default=MATRIX, metavar="DIR",
                   help=f"verification matrix to take a run's verdicts from (default {MATRIX})")
    p.add_argument("--inline", action="store_true",
                   help="embed the figures as data URIs, so REPORT.md renders on its own")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..report import describe_folder, write_report
    problem = describe_folder(args.folder)
    if problem:
        raise UsageError(problem)
    print(f"wrote {write_report(args.folder, inline=args.inline, matrix=args.matrix)}")
    return 0
