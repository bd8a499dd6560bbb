"""Replications by precision: add replications until every headline interval is narrow enough.

The headline intervals are the share of sessions that met each judged violation, per policy
row (replication-level t-intervals; for a row with no event, its one-sided upper bound). Runs
double the replication count each round (a replication's seed does not depend on the count, so
earlier replications are kept) until every half-width is <= the target or the cap is reached.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Tuple

from model import VIOLATIONS

from .config import DesConfig
from .runner import run_comparison
from .stats import half_width, summarize


def unmet(summary: Dict[str, dict], target: float) -> Dict[str, Dict[str, Optional[float]]]:
    """row -> {violation: half-width} for every headline interval wider than `target` (None:
    too few replications for an interval)."""
    out: Dict[str, Dict[str, Optional[float]]] = {}
    for row, entry in summary.items():
        for name in VIOLATIONS:
            half = half_width(entry["share_of_sessions"][name])
            if half is None or half > target:
                out.setdefault(row, {})[name] = half
    return out


def run_to_precision(config: DesConfig, target: float, cap: int, progress=None,
                     workers: int = 1) -> Tuple[DesConfig, List[dict], Dict[str, object]]:
    """(the config with its final replication count, every record, a precision report); the
    replications on `workers` processes (the same records)."""
    records = run_comparison(config, progress, workers=workers)
    rounds = [config.replications]
    while True:
        missing = unmet(summarize(records, config.baseline), target)
        if not missing or config.replications >= cap:
            break
        grown = dataclasses.replace(config, replications=min(cap, 2 * config.replications))
        records += run_comparison(grown, progress, first=config.replications, workers=workers)
        config = grown
        rounds.append(config.replications)
    report = {"target_half_width": target, "cap": cap, "rounds": rounds,
              "replications": config.replications, "met": not missing,
              "unmet": {row: {n: h for n, h in v.items()} for row, v in missing.items()}}
    return config, records, report
