"""`python -m simulations figures DIR`: the figures of a sweep, from its result files only."""
from __future__ import annotations

import argparse
from pathlib import Path

from .figures import make_figures


def add_parser(verbs) -> None:
    p = verbs.add_parser("figures", help="draw a sweep's figures from its result files",
                         description="Read DIR/results.csv and DIR/manifest.json and write "
                                     "PNG and SVG figures (and the plotted data) to "
                                     "DIR/figures.")
    p.add_argument("folder", type=Path, metavar="DIR")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from .cli import UsageError
    for name in ("results.csv", "manifest.json"):
        if not (args.folder / name).is_file():
            raise UsageError(f"{args.folder / name} is missing: run a sweep with --out "
                             f"{args.folder} first")
    made = make_figures(args.folder)
    for path in made["files"]:
        print(f"wrote {path}")
    return 0
