"""Statistics over replications: rates, Wilson intervals, t-intervals and paired differences.

Each replication is one independent observation. A *rate* (violations per 1,000 resumptions, or
per session-hour) is averaged over replications with a Student t-interval. A *proportion*
(sessions that met a violation) pools the sessions of all replications with a Wilson score
interval. A *paired difference* subtracts the baseline policy's rate in the same replication
(common random numbers) before averaging, so the interval reflects only the policy's effect.
"""
from __future__ import annotations

import math
from typing import Dict, Iterable, List, Optional, Sequence

from scipy import stats as sps

from model import COSTS, VIOLATIONS

CONFIDENCE = 0.95


def wilson(successes: int, trials: int, confidence: float = CONFIDENCE) -> Dict[str, float]:
    """Wilson score interval for a binomial proportion."""
    if trials == 0:
        return {"p": 0.0, "lo": 0.0, "hi": 1.0, "k": successes, "n": trials}
    z = float(sps.norm.ppf(0.5 + confidence / 2))
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return {"p": p, "lo": max(0.0, centre - half), "hi": min(1.0, centre + half),
            "k": successes, "n": trials}


def t_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> Dict[str, object]:
    """Mean with a Student t-interval; the interval is None with fewer than two values."""
    n = len(values)
    mean = sum(values) / n if n else 0.0
    if n < 2:
        return {"mean": mean, "lo": None, "hi": None, "n": n}
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = float(sps.t.ppf(0.5 + confidence / 2, n - 1)) * sd / math.sqrt(n)
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "n": n}


def per_thousand(record: dict, name: str) -> float:
    """Violations `name` per 1,000 resumptions in one record (0 when nothing was resumed)."""
    return 1000.0 * record["violations"][name] / record["resumptions"] \
        if record["resumptions"] else 0.0


def per_session_hour(record: dict, value: float) -> float:
    return value / record["session_hours"] if record["session_hours"] else 0.0


def _by_policy(records: Iterable[dict]) -> Dict[str, List[dict]]:
    out: Dict[str, List[dict]] = {}
    for record in records:
        out.setdefault(record["policy"], []).append(record)
    for rows in out.values():
        rows.sort(key=lambda r: r["replication"])
    return out


def summarize(records: Sequence[dict], baseline: Optional[str] = None) -> Dict[str, dict]:
    """Per policy: means with t-intervals, pooled proportions with Wilson intervals, and the
    paired difference of each rate against `baseline` (if given and present)."""
    grouped = _by_policy(records)
    base = {r["replication"]: r for r in grouped.get(baseline, [])} if baseline else {}
    summary: Dict[str, dict] = {}
    for policy, rows in grouped.items():
        sessions = sum(r["sessions"] for r in rows)
        entry = {
            "replications": len(rows),
            "sessions": sessions,
            "resumptions": t_interval([r["resumptions"] for r in rows]),
            "per_1000_resumptions": {n: t_interval([per_thousand(r, n) for r in rows])
                                     for n in VIOLATIONS},
            "per_session_hour": {n: t_interval([per_session_hour(r, r["violations"][n])
                                                for r in rows]) for n in VIOLATIONS},
            "sessions_affected": {n: wilson(sum(r["sessions_affected"][n] for r in rows),
                                            sessions) for n in VIOLATIONS},
            "stall_seconds_per_session_hour": t_interval(
                [per_session_hour(r, r["stall_seconds"]) for r in rows]),
            "reinits_per_session_hour": t_interval(
                [per_session_hour(r, r["reinits"]) for r in rows]),
            "costs_per_session_hour": {n: t_interval([per_session_hour(r, r["costs"][n])
                                                      for r in rows]) for n in COSTS},
            "sessions_failed_or_gave_up": wilson(
                sum(r["sessions_failed"] + r["sessions_gave_up"] for r in rows), sessions),
        }
        if base and policy != baseline:
            paired = [r for r in rows if r["replication"] in base]
            entry["paired_vs_baseline"] = {
                n: t_interval([per_thousand(r, n) - per_thousand(base[r["replication"]], n)
                               for r in paired]) for n in VIOLATIONS}
        summary[policy] = entry
    return summary
