"""`python -m simulations run CONFIG.toml`: compare policies with the discrete-event engine."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from model import ConfigError

from ..des import config as des_config
from ..inputs import add_precision_arguments, check_out, check_precision
from ..provenance import manifest, write_atomic, write_json
from ..render import comparison_text
from .arguments import checked, parse_policies
from .errors import UsageError


def add_parser(verbs) -> None:
    p = verbs.add_parser(
        "run", help="compare policies with the discrete-event engine (rates with intervals)",
        description="Run replications of a DES config (read on top of the default "
                    "simulations/configs/rolling_restart.toml) under each policy row with "
                    "common random numbers; print, per row and its client, the share of "
                    "sessions that met each violation and the rate per session-hour with 95% "
                    "intervals over replications, paired differences against the baseline and "
                    "the cost of safety; write records.jsonl, summary.json, manifest.json and "
                    "timings.json.",
        epilog="example: python -m simulations run simulations/configs/rolling_restart.toml "
               "--set timing.restart_period=300 --replications 5")
    p.add_argument("config", type=Path, metavar="CONFIG.toml")
    p.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                   help="override a config value (repeatable), e.g. system.lb=sticky")
    p.add_argument("--replications", type=int, metavar="N")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="replications on N local processes (default 1; the same records)")
    p.add_argument("--seed", type=int, metavar="S")
    p.add_argument("--policies", metavar="A,B,...", help="policies to compare (default: the "
                   "config's run.policies)")
    p.add_argument("--baseline", metavar="ROW", help="the row paired differences are taken "
                   "against (default: the config's run.baseline, strict)")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="results folder (default: results/quick/runs/<config name>; the "
                        "committed results/runs/ folders are written only by `make results`)")
    add_precision_arguments(p, "policy row", 80)
    p.add_argument("--json", action="store_true", help="print the summary and records as JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..des.precision import run_to_precision
    from ..des.runner import replication_seeds, run_comparison
    from ..des.stats import summarize
    policies = parse_policies(args.policies, "--policies", rows=True)
    checked(check_precision, args.precision, args.max_replications)
    if args.workers < 1:
        raise UsageError("--workers must be >= 1")
    try:
        config = des_config.load(args.config, args.set, args.replications, args.seed, policies,
                                 args.baseline)
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    out = args.out or Path("results/quick/runs") / args.config.stem
    checked(check_out, out, "run")
    precision = None
    if args.precision is not None:
        config, records, precision = run_to_precision(config, args.precision,
                                                      args.max_replications,
                                                      workers=args.workers)
    else:
        records = run_comparison(config, workers=args.workers)
    summary = summarize(records, config.baseline)
    seeds = [{"replication": r, "entropy": s.entropy, "spawn_key": list(s.spawn_key)}
             for r, s in enumerate(replication_seeds(config))]
    meta = manifest(f"run {args.config}", config.as_dict(), seeds)
    timings = {"cpu_seconds": {f"{r['policy']}/{r['replication']}": r["cpu_seconds"]
                               for r in records}}
    records = [{k: v for k, v in r.items() if k != "cpu_seconds"} for r in records]
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records)
    write_atomic(out / "records.jsonl", text)
    write_json(out / "timings.json", timings)
    write_json(out / "summary.json", {"config": config.as_dict(), "summary": summary,
                                      "precision": precision})
    write_json(out / "manifest.json", meta)
    if args.json:
        print(json.dumps({"config": config.as_dict(), "summary": summary, "records": records,
                          "precision": precision, "out": str(out)}, sort_keys=True))
    else:
        print(comparison_text(config, summary, args.config.name, precision))
        print(f"\nrecords, summary and manifest: {out}/")
    return 0
