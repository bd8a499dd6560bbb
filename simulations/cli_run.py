"""`python -m simulations run CONFIG.toml`: compare policies with the discrete-event engine."""
from __future__ import annotations

import argparse
import json
from dataclasses import fields
from pathlib import Path
from typing import Dict, Optional

from model import ConfigError
from model.properties import LABELS

from .des import config as des_config
from .des.runner import replication_seeds, run_comparison
from .des.precision import run_to_precision
from .des.stats import summarize
from . import render as render_tables
from .inputs import add_precision_arguments, check_out, check_precision
from .provenance import manifest, write_atomic, write_json



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


def render(config: des_config.DesConfig, summary: Dict[str, dict], name: str,
           precision: Optional[dict] = None) -> str:
    """The comparison as aligned text tables (what `run` prints)."""
    t = config.timing
    rows = [p for p in config.policies if p in summary]
    s = config.system
    head = [f"{name}: {config.replications} replication(s) x {len(rows)} policy rows, seed "
            f"{config.seed}, {t.duration:g} s simulated each",
            f"deployment: {s.instances} instances, lb {s.lb}, store {s.store}, buffer {s.buffer} "
            f"(keyed by {s.buffer_keying}, capacity {s.buffer_capacity}), ids {s.event_ids}; "
            f"restart every {t.restart_period:g} s, {t.arrival_rate:g} sessions/s",
            "timing: " + ", ".join(f"{f.name} {getattr(t, f.name):g}" for f in fields(t)),
            "clients: " + ", ".join(f"{r} -> {summary[r]['client_profile']}" for r in rows)]
    if precision is not None:
        head.append(_precision_line(precision))
    head += ["\n" + render_tables.text(table)
             for table in render_tables.summary_tables(summary, rows, config.baseline)]
    return "\n".join(head) + f"\n\n{render_tables.legend()}"


def _precision_line(p: dict) -> str:
    if p["met"]:
        return (f"precision: every headline half-width <= {p['target_half_width']:g} after "
                f"{p['replications']} replications (rounds {p['rounds']})")
    worst = ", ".join(f"{row} {LABELS[n]} {'n/a' if h is None else f'{h:.4f}'}"
                      for row, v in p["unmet"].items() for n, h in v.items())
    return (f"precision: NOT MET at the cap of {p['cap']} replications for target "
            f"{p['target_half_width']:g}: {worst}")


def run(args: argparse.Namespace) -> int:
    from .cli import UsageError
    policies = None
    if args.policies is not None:
        policies = [p.strip() for p in args.policies.split(",") if p.strip()]
        if not policies:
            raise UsageError("--policies: names no policy")
        for p in policies:
            try:
                des_config.parse_row(p)
            except ConfigError as exc:
                raise UsageError(f"--policies: {exc.problem}") from None
    try:
        check_precision(args.precision, args.max_replications)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    try:
        config = des_config.load(args.config, args.set, args.replications, args.seed, policies,
                                 args.baseline)
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    out = args.out or Path("results/quick/runs") / args.config.stem
    try:
        check_out(out, "run")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    precision = None
    if args.precision is not None:
        config, records, precision = run_to_precision(config, args.precision,
                                                      args.max_replications)
    else:
        records = run_comparison(config)
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
        print(render(config, summary, args.config.name, precision))
        print(f"\nrecords, summary and manifest: {out}/")
    return 0
