"""`python -m simulations sweep SPEC --out DIR`: a factorial sweep, resumable, local or Dask."""
from __future__ import annotations

import argparse
from pathlib import Path

from model import ConfigError

from .sweep import spec as sweep_spec
from .sweep.execute import plan, run_sweep
from .sweep.results import rows, write


def add_parser(verbs) -> None:
    p = verbs.add_parser(
        "sweep", help="run a parameter sweep (resumable; local processes or a Dask cluster)",
        description="Run every (grid point, policy, replication) of a sweep spec. Finished runs "
                    "are kept under DIR/runs and skipped on a re-run, so an interrupted sweep "
                    "resumes; the tidy table is DIR/results.csv, its provenance "
                    "DIR/manifest.json.",
        epilog="example: python -m simulations sweep simulations/sweeps/restart_frequency.toml "
               "--out results/sweeps/restart_frequency --workers 2")
    p.add_argument("spec", type=Path, metavar="SPEC.toml")
    p.add_argument("--out", type=Path, required=True, metavar="DIR")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="local worker processes (default 1)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="run on the Dask distributed cluster at this address instead")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=run)


def _summary(spec, frame) -> str:
    """One screen: per policy and first grid key, sessions with a duplicate or a stall."""
    key = f"param.{spec.grid[0][0]}"
    lines = [f"{spec.title}: {len(frame)} runs, {len(spec.points)} point(s) x "
             f"{len(spec.policies)} policies x {spec.replications} replication(s)",
             f"share of sessions with a duplicate / a stall, by {spec.grid[0][0]}:"]
    grouped = frame.groupby(["policy", key])
    dup = grouped["sessions_affected.duplicate_delivery"].sum() / grouped["sessions"].sum()
    stall = grouped["sessions_affected.stall"].sum() / grouped["sessions"].sum()
    values = sorted(frame[key].unique(), key=lambda v: (str(type(v)), v))
    lines.append("  " + "policy".ljust(12) + "".join(f"{str(v):>16}" for v in values))
    for policy in spec.policies:
        cells = [f"{100 * dup[(policy, v)]:6.1f}% /{100 * stall[(policy, v)]:5.1f}%"
                 for v in values]
        lines.append("  " + policy.ljust(12) + "".join(f"{c:>16}" for c in cells))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from .cli import UsageError
    if args.workers < 1:
        raise UsageError("--workers must be >= 1")
    try:
        spec = sweep_spec.load(args.spec)
    except ConfigError as exc:
        raise UsageError(f"bad sweep spec: {exc}") from exc
    timings = run_sweep(spec, args.out, args.workers, args.scheduler, progress=not args.quiet)
    runs, _ = plan(spec, args.out)
    path = write(spec, runs, args.out, timings)
    print(_summary(spec, rows(spec, runs, args.out)))
    print(f"\n{timings['ran']} run(s) now, {timings['skipped']} already done; "
          f"{timings['wall_seconds']:.1f} s wall. Results: {path}, manifest: "
          f"{args.out / 'manifest.json'}")
    return 0
