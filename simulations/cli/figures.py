"""`python -m simulations figures DIR`: the figures of a sweep, from its result files only."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..inputs import check_sweep_folder, folder_kind
from .arguments import checked
from .errors import UsageError


def add_parser(verbs) -> None:
    p = verbs.add_parser("figures", help="draw a sweep's figures from its result files",
                         description="Read DIR/results.csv and DIR/manifest.json and write "
                                     "PNG and SVG figures (and the plotted data) to "
                                     "DIR/figures.")
    p.add_argument("folder", type=Path, metavar="DIR")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..figures import make_figures
    folder = args.folder
    if not folder.is_dir():
        raise UsageError(f"{folder}: {'is a file, not' if folder.exists() else 'no such'} "
                         "sweep folder")
    if folder_kind(folder) == "run":
        raise UsageError(f"{folder} is a `run` folder: `figures` draws sweeps (DIR/results.csv); "
                         f"a run's tables are in its report (`python -m simulations report "
                         f"{folder}`)")
    checked(check_sweep_folder, folder)
    made = make_figures(folder)
    for path in made["files"]:
        print(f"wrote {path}")
    return 0
