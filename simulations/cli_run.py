"""`python -m simulations run CONFIG.toml`: compare policies with the discrete-event engine."""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Dict, List

from model import COSTS, POLICIES, VIOLATIONS, ConfigError
from model import properties
from model.properties import LABELS

from .des import config as des_config
from .des.runner import replication_seeds, run_comparison
from .des.stats import summarize
from .provenance import manifest, write_atomic, write_json



def add_parser(verbs) -> None:
    p = verbs.add_parser(
        "run", help="compare policies with the discrete-event engine (rates with intervals)",
        description="Run replications of a DES config under each policy with common random "
                    "numbers; print rates per 1,000 resumptions and per session-hour with 95%% "
                    "intervals and paired differences against the baseline policy; write "
                    "records.jsonl, summary.json and manifest.json.",
        epilog="example: python -m simulations run simulations/configs/rolling_restart.toml "
               "--set timing.restart_period=300 --replications 5")
    p.add_argument("config", type=Path, metavar="CONFIG.toml")
    p.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                   help="override a config value (repeatable), e.g. system.lb=sticky")
    p.add_argument("--replications", type=int, metavar="N")
    p.add_argument("--seed", type=int, metavar="S")
    p.add_argument("--policies", metavar="A,B,...", help="policies to compare (default: the "
                   "config's run.policies)")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="results folder (default: results/runs/<config name>)")
    p.add_argument("--json", action="store_true", help="print the summary and records as JSON")
    p.set_defaults(handler=run)


def _cell(interval: dict, scale: float = 1.0, digits: int = 1) -> str:
    mean = interval["mean"] * scale
    if interval["lo"] is None:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {(interval['hi'] - interval['mean']) * scale:.{digits}f}"


def _wilson(interval: dict) -> str:
    return f"{100 * interval['p']:.1f}% [{100 * interval['lo']:.1f}, {100 * interval['hi']:.1f}]"


def _table(title: str, header: List[str], rows: List[List[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    lines = [title, "  ".join(h.ljust(w) for h, w in zip(header, widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in rows]
    return "\n".join(lines)


def render(config: des_config.DesConfig, summary: Dict[str, dict], name: str) -> str:
    t = config.timing
    policies = [p for p in config.policies if p in summary]
    head = [f"{name}: {config.replications} replication(s) x {len(policies)} policies, "
            f"seed {config.seed}, {t.duration:g} s each, client profile {config.client_profile}; "
            "intervals are 95%"]
    short = [LABELS[n] for n in VIOLATIONS]
    rows = [[p, _cell(summary[p]["resumptions"], digits=0)]
            + [_cell(summary[p]["per_1000_resumptions"][n]) for n in VIOLATIONS]
            for p in policies]
    head.append(_table("\nviolations per 1,000 resumptions (mean ± t half-width)",
                       ["policy", "resumptions"] + short, rows))
    rows = [[p, str(summary[p]["sessions"])]
            + [_wilson(summary[p]["sessions_affected"][n]) for n in VIOLATIONS]
            for p in policies]
    head.append(_table("\nsessions that met each violation (pooled, Wilson)",
                       ["policy", "sessions"] + short, rows))
    paired = [p for p in policies if "paired_vs_baseline" in summary[p]]
    if paired:
        rows = [[p] + [_cell(summary[p]["paired_vs_baseline"][n]) for n in VIOLATIONS]
                for p in paired]
        head.append(_table(f"\npaired difference against {config.baseline}, per 1,000 "
                           "resumptions (same replication seeds)", ["policy"] + short, rows))
    rows = [[p, _cell(summary[p]["stall_seconds_per_session_hour"])]
            + [_cell(summary[p]["costs_per_session_hour"][n], digits=2) for n in COSTS]
            + [_wilson(summary[p]["sessions_failed_or_gave_up"])] for p in policies]
    head.append(_table("\ncost, per session-hour (what safety costs, beside the violations)",
                       ["policy", "stall s"] + [LABELS[n] for n in COSTS]
                       + ["sessions failed or gave up"], rows))
    legend = properties.legend(VIOLATIONS) + "; " + properties.legend(COSTS)
    return "\n".join(head) + f"\n\n{legend}"


def run(args: argparse.Namespace) -> int:
    from .cli import UsageError
    policies = None
    if args.policies:
        policies = [p.strip() for p in args.policies.split(",") if p.strip()]
        for p in policies:
            if p not in POLICIES:
                raise UsageError(f"unknown policy {p!r}; valid: {', '.join(POLICIES)}")
    try:
        config = des_config.load(args.config, args.set, args.replications, args.seed, policies)
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc
    records = run_comparison(config)
    summary = summarize(records, config.baseline)
    out = args.out or Path("results/runs") / args.config.stem
    seeds = [{"replication": r, "entropy": s.entropy, "spawn_key": list(s.spawn_key)}
             for r, s in enumerate(replication_seeds(config))]
    meta = manifest(f"run {args.config}", config.as_dict(), seeds)
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records)
    write_atomic(out / "records.jsonl", text)
    write_json(out / "summary.json", {"config": config.as_dict(), "summary": summary})
    write_json(out / "manifest.json", meta)
    if args.json:
        print(json.dumps({"config": config.as_dict(), "summary": summary, "records": records,
                          "out": str(out)}, sort_keys=True))
    else:
        print(render(config, summary, args.config.name))
        print(f"\nrecords, summary and manifest: {out}/")
    return 0
