"""`python -m simulations sweep SPEC --out DIR`: a factorial sweep, resumable, local or Dask."""
from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from model import ConfigError

from ..inputs import add_precision_arguments, check_out, check_precision
from ..render import text
from ..sweep import spec as sweep_spec
from .arguments import checked
from .errors import UsageError


def add_parser(verbs) -> None:
    p = verbs.add_parser(
        "sweep", help="run a parameter sweep (resumable; local processes or a Dask cluster)",
        description="Run every (grid point, policy, replication) of a sweep spec. Finished runs "
                    "are kept under DIR/runs and skipped on a re-run, so an interrupted sweep "
                    "resumes; the tidy table is DIR/results.csv, its provenance "
                    "DIR/manifest.json.",
        epilog="example: python -m simulations sweep simulations/sweeps/restart_frequency.toml "
               "--out results/quick/restart_frequency --workers 2")
    p.add_argument("spec", type=Path, metavar="SPEC.toml")
    p.add_argument("--out", type=Path, required=True, metavar="DIR")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="local worker processes (default 1)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="run on the Dask distributed cluster at this address instead")
    add_precision_arguments(p, "grid point and policy row", 48)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=run)


def _summary(spec, frame) -> str:
    """One screen: per policy and first grid key, sessions with a duplicate or a stall."""
    from .. import figures
    key = f"param.{spec.grid[0][0]}"
    others = [f"param.{k}" for k, _ in spec.grid[1:]]
    base = spec.base_config
    lines = [f"{spec.title}: {len(frame)} runs, {len(spec.points)} point(s) x "
             f"{len(spec.policies)} policies x {spec.replications} replication(s)",
             figures.deployment_line({"base_config": base.as_dict(),
                                      "config": spec.as_dict()}),
             "clients: " + ", ".join(f"{row} -> {client}"
                                     for row, client in base.row_profiles().items())]
    title = (f"share of sessions with a duplicate / a stall (mean over replications), by "
             f"{spec.grid[0][0]}" + (f", the highest over {', '.join(o[6:] for o in others)}"
                                     if others else ""))
    frame = frame.assign(
        dup=frame["sessions_affected.duplicate_delivery"] / frame["sessions"],
        stall=frame["sessions_affected.stall"] / frame["sessions"])
    means = frame.groupby(["policy", key] + others)[["dup", "stall"]].mean()
    worst = means.groupby(level=[0, 1]).max()
    dup, stall = worst["dup"], worst["stall"]
    values = sorted(frame[key].unique(), key=lambda v: (str(type(v)), v))
    table_rows = [[policy] + [f"{100 * dup[(policy, v)]:.1f}% / {100 * stall[(policy, v)]:.1f}%"
                        for v in values] for policy in spec.policies]
    lines.append(text((title, ["policy"] + [str(v) for v in values], table_rows)))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from ..sweep.execute import check_scheduler, des_code, plan, run_sweep
    from ..sweep.precision import unmet
    from ..sweep.results import rows, write
    if args.workers < 1:
        raise UsageError("--workers must be >= 1")
    try:
        spec = sweep_spec.load(args.spec)
    except ConfigError as exc:
        raise UsageError(f"bad sweep spec: {exc}") from exc
    checked(check_precision, args.precision, args.max_replications)
    checked(check_out, args.out, "sweep")
    if args.scheduler:
        checked(check_scheduler, args.scheduler)
    code = des_code()     # one value for the whole invocation
    timings = run_sweep(spec, args.out, args.workers, args.scheduler, progress=not args.quiet,
                        code=code)
    runs, _ = plan(spec, args.out, code)
    report = None
    if args.precision is not None:
        rounds = [spec.replications]
        while True:
            missing = unmet(rows(spec, runs, args.out), args.precision)
            if not missing or spec.replications >= args.max_replications:
                break
            spec = dataclasses.replace(spec, replications=min(args.max_replications,
                                                              2 * spec.replications))
            rounds.append(spec.replications)
            more = run_sweep(spec, args.out, args.workers, args.scheduler,
                             progress=not args.quiet, code=code)
            timings = {**more, "wall_seconds": timings["wall_seconds"] + more["wall_seconds"],
                       "ran": timings["ran"] + more["ran"]}
            runs, _ = plan(spec, args.out, code)
        report = {"target_half_width": args.precision, "cap": args.max_replications,
                  "rounds": rounds, "replications": spec.replications, "met": not missing,
                  "unmet": missing}
    path = write(spec, runs, args.out, timings, report)
    print(_summary(spec, rows(spec, runs, args.out)))
    if report is not None:
        print(f"\nprecision {args.precision:g}: " + (
            f"met after {spec.replications} replications (rounds {rounds})" if report["met"]
            else f"NOT MET at the cap of {spec.replications} replications for "
                 f"{len(report['unmet'])} interval(s), e.g. " + ", ".join(
                     f"{u['policy']} {u['violation']} at {u['point']}: "
                     f"{'n/a' if u['half_width'] is None else round(u['half_width'], 4)}"
                     for u in report["unmet"][:3])))
    print(f"\n{timings['ran']} run(s) now, {timings['skipped']} already done; "
          f"{timings['wall_seconds']:.1f} s wall. Results: {path}, manifest: "
          f"{args.out / 'manifest.json'}")
    return 0
