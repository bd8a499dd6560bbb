"""Sweep replications by precision: double the replications of the whole sweep until every
headline interval of every grid point meets the target half-width, or the cap is reached.

The headline intervals are the share of sessions that met each judged violation, per grid point
and policy row, from replication means (a zero row: its one-sided upper bound). A run's key does
not depend on the replication count, so each round runs only the new replications.
"""
from __future__ import annotations

from typing import Dict, List

import pandas as pd

from model import VIOLATIONS

from ..des.stats import frame_interval, half_width


def unmet(frame: pd.DataFrame, target: float) -> List[Dict[str, object]]:
    """[{point, policy, violation, half_width}] for every interval wider than `target`."""
    params = [c for c in frame.columns if c.startswith("param.")]
    out = []
    for key, group in frame.groupby(params + ["policy"], sort=False):
        key = key if isinstance(key, tuple) else (key,)
        for name in VIOLATIONS:
            half = half_width(frame_interval(group, "share", [f"sessions_affected.{name}"]))
            if half is None or half > target:
                point = {p[len("param."):]: (v.item() if hasattr(v, "item") else v)
                         for p, v in zip(params, key[:-1])}
                out.append({"point": point, "policy": key[-1], "violation": name,
                            "half_width": half})
    return out
