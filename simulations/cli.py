"""The command line: `python -m simulations <verb> [options]`, `--help` on every verb.

Bad input (an unknown name, a malformed option) prints one line naming what is wrong and the
valid choices, exits with status 2, and writes nothing.
"""
from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from . import (cli_bench, cli_compile, cli_conformance, cli_explore, cli_figures, cli_report, cli_run,
               cli_scenario, cli_sweep, cli_verify)


class UsageError(Exception):
    """Bad command-line input; the message is the one line the user sees."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m simulations",
                     description="Formal model and simulator of MCP streamable-HTTP session "
                                 "resumption.")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser)
    verbs.required = True
    cli_scenario.add_parser(verbs)
    cli_run.add_parser(verbs)
    cli_explore.add_parser(verbs)
    cli_verify.add_parser(verbs)
    cli_sweep.add_parser(verbs)
    cli_figures.add_parser(verbs)
    cli_report.add_parser(verbs)
    cli_bench.add_parser(verbs)
    cli_conformance.add_parser(verbs)
    cli_compile.add_parser(verbs)
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
