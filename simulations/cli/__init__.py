"""The command line: `python -m simulations <verb> [options]`, `--help` on every verb.

One module per verb (`VERBS`, in the order `--help` lists them): each declares its arguments
(`add_parser`), validates them with `arguments.py` and calls engine-owned functions (`run`).
Bad input (an unknown name, a malformed option) prints one line naming what is wrong and the
valid choices, exits with status 2, and writes nothing. A verb imports the engine libraries it
needs (matplotlib, pandas, scipy.stats, simpy, networkx) when it runs, not when the parser is
built: `--help` answers in about 0.2 s (it took 2), and `explore` carries none of them.
"""
from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from . import (
    bench,
    compile,
    conformance,
    explore,
    figures,
    readme,
    report,
    run,
    scenario,
    sweep,
    verify,
)
from .arguments import Parser
from .errors import UsageError

VERBS = (scenario, run, explore, verify, sweep, figures, report, readme, bench, conformance,
         compile)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="python -m simulations",
                    description="Formal model and simulator of MCP streamable-HTTP session "
                                "resumption.")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=Parser)
    verbs.required = True
    for verb in VERBS:
        verb.add_parser(verbs)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return args.handler(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into head
        return 0


__all__ = ["UsageError", "build_parser", "main"]
