"""`python -m simulations report DIR`: DIR/REPORT.md, ready to paste into a design doc."""
from __future__ import annotations

import argparse
from pathlib import Path

from .report import describe_folder, write_report


def add_parser(verbs) -> None:
    p = verbs.add_parser("report", help="write DIR/REPORT.md for a run or sweep folder",
                         description="Write DIR/REPORT.md: the question, the configuration, "
                                     "rates with intervals per policy, the figures, the "
                                     "explorer's verdicts and the provenance.")
    p.add_argument("folder", type=Path, metavar="DIR")
    p.add_argument("--no-explore", action="store_true",
                   help="leave out the explorer's verdicts (saves ~40 s)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from .cli import UsageError
    problem = describe_folder(args.folder)
    if problem:
        raise UsageError(problem)
    print(f"wrote {write_report(args.folder, explorer=not args.no_explore)}")
    return 0
