"""Statistics over replications: the replication is the independent unit.

Sessions of one replication share its restarts, drops and load, so they are not independent
draws: every interval here is computed from one value per replication (a share of sessions, a
rate per session-hour), never from sessions pooled across replications or grid points.

- `replication_interval`: the mean of the per-replication values with a Student t-interval
  (clipped to what the quantity can be: >= 0, and <= 1 for a share).
- A quantity that is zero in every replication gets a one-sided 95% upper bound instead of a
  zero-width interval: exact Clopper-Pearson over the sessions for a share (1 - 0.05**(1/N),
  about 3/N, the rule of three), exact Poisson over the session-hours for a rate (-ln 0.05 / H).
  With no event there is no between-replication variance to estimate, so this bound treats the
  sessions (hours) as independent; it is the smallest honest statement, not a precise one.
- A *paired difference* subtracts the baseline row's value in the same replication (common
  random numbers) before averaging.
- `wilson` is kept for comparison only: the pooled-session band a replication-level interval
  must not be narrower than when sessions within a replication are correlated.

Every rate has a policy-independent denominator (session-hours, or sessions: arrivals are the
same under every policy with common random numbers). `per_1000_resumptions` is conditional on
resuming (its denominator depends on the policy) and is labelled so wherever it is shown.
"""
from __future__ import annotations

import math
from typing import Dict, List, Optional, Sequence

from scipy import stats as sps

from model import COSTS, VIOLATIONS

CONFIDENCE = 0.95
ALPHA = 1 - CONFIDENCE


def wilson(successes: int, trials: int, confidence: float = CONFIDENCE) -> Dict[str, float]:
    """Wilson score interval for a binomial proportion (sessions treated as independent)."""
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


def share_upper_bound(sessions: int) -> float:
    """One-sided 95% Clopper-Pearson upper bound of a share with 0 events in `sessions`."""
    return 1.0 - ALPHA ** (1.0 / sessions) if sessions else 1.0


def rate_upper_bound(hours: float) -> Optional[float]:
    """One-sided 95% exact Poisson upper bound of a rate with 0 events in `hours`."""
    return -math.log(ALPHA) / hours if hours > 0 else None


def replication_interval(values: Sequence[float], zero_bound: Optional[float],
                         ceiling: Optional[float] = None) -> Dict[str, object]:
    """{mean, lo, hi, n, zero}: a t-interval over replication values, clipped to [0, ceiling];
    when every value is 0, lo = 0 and hi = `zero_bound` (one-sided)."""
    n = len(values)
    if n and all(v == 0 for v in values):
        return {"mean": 0.0, "lo": 0.0, "hi": zero_bound, "n": n, "zero": True}
    out = t_interval(values)
    if out["lo"] is not None:
        out["lo"] = max(0.0, out["lo"])
        out["hi"] = out["hi"] if ceiling is None else min(ceiling, out["hi"])
    out["zero"] = False
    return out


def paired_interval(values: Sequence[float]) -> Dict[str, object]:
    """t-interval of per-replication differences; all zero (neither row had an event in any
    replication) is marked `zero` with no bound: each row's own bound says how small."""
    if values and all(v == 0 for v in values):
        return {"mean": 0.0, "lo": None, "hi": None, "n": len(values), "zero": True}
    return {**t_interval(values), "zero": False}


def per_thousand(record: dict, name: str) -> float:
    """Violations `name` per 1,000 resumptions in one record (0 when nothing was resumed)."""
    return 1000.0 * record["violations"][name] / record["resumptions"] \
        if record["resumptions"] else 0.0


def per_session_hour(record: dict, value: float) -> float:
    return value / record["session_hours"] if record["session_hours"] else 0.0


def share(record: dict, count: int) -> float:
    return count / record["sessions"] if record["sessions"] else 0.0


def requests_per_completed_call(record: dict) -> float:
    """HTTP requests the clients sent per call completed (0 when no call completed)."""
    done = record["calls_completed"]
    return sum(record["requests"].values()) / done if done else 0.0


def mean_recovery_seconds(record: dict) -> float:
    """Mean seconds from a broken stream to the client's next data (0 without recoveries)."""
    n = record["recoveries"]
    return record["recovery_seconds"] / n if n else 0.0


def abandoned(record: dict) -> int:
    """Sessions whose client failed (an error it does not recover from) or gave up retrying."""
    return record["sessions_failed"] + record["sessions_gave_up"]


def by_row(records: Sequence[dict]) -> Dict[str, List[dict]]:
    """Records grouped by policy row, each group sorted by replication."""
    out: Dict[str, List[dict]] = {}
    for record in records:
        out.setdefault(record["policy"], []).append(record)
    for rows in out.values():
        rows.sort(key=lambda r: r["replication"])
    return out


def _shares(rows: List[dict], count) -> Dict[str, object]:
    sessions = sum(r["sessions"] for r in rows)
    return replication_interval([share(r, count(r)) for r in rows],
                                share_upper_bound(sessions), 1.0)


def _rates(rows: List[dict], count) -> Dict[str, object]:
    hours = sum(r["session_hours"] for r in rows)
    return replication_interval([per_session_hour(r, count(r)) for r in rows],
                                rate_upper_bound(hours))


def summarize(records: Sequence[dict], baseline: Optional[str] = None) -> Dict[str, dict]:
    """Per policy row: replication-level intervals of every violation as a share of sessions
    and per session-hour, of every cost per session-hour, and paired differences against
    `baseline` (if given and present) on both."""
    grouped = by_row(records)
    base = {r["replication"]: r for r in grouped.get(baseline, [])} if baseline else {}
    summary: Dict[str, dict] = {}
    for row, rows in grouped.items():
        resumed = sum(r["resumptions"] for r in rows)
        entry = {
            "client_profile": rows[0].get("client_profile"),
            "replications": len(rows),
            "sessions": sum(r["sessions"] for r in rows),
            "session_hours": sum(r["session_hours"] for r in rows),
            "resumptions": replication_interval([r["resumptions"] for r in rows], None),
            "share_of_sessions": {n: _shares(rows, lambda r, n=n: r["sessions_affected"][n])
                                  for n in VIOLATIONS},
            "per_session_hour": {n: _rates(rows, lambda r, n=n: r["violations"][n])
                                 for n in VIOLATIONS},
            "per_1000_resumptions": {n: replication_interval(
                [per_thousand(r, n) for r in rows], rate_upper_bound(resumed / 1000.0))
                for n in VIOLATIONS},
            "costs_per_session_hour": {n: _rates(rows, lambda r, n=n: r["costs"][n])
                                       for n in COSTS},
            "stall_seconds_per_session_hour": replication_interval(
                [per_session_hour(r, r["stall_seconds"]) for r in rows], None),
            "sessions_abandoned": _shares(rows, abandoned),
            "requests_per_completed_call": replication_interval(
                [requests_per_completed_call(r) for r in rows], None),
            "recovery_seconds_mean": replication_interval(
                [mean_recovery_seconds(r) for r in rows], None),
            "memory_mean": {kind: replication_interval(
                [r["memory"]["mean"][kind] for r in rows], None)
                for kind in rows[0]["memory"]["mean"]},
            "memory_peak": replication_interval(
                [r["memory"]["peak"]["entries"] for r in rows], None),
        }
        if base and row != baseline:
            paired = [r for r in rows if r["replication"] in base]
            entry["paired_vs_baseline"] = {
                "share_of_sessions": {n: paired_interval(
                    [share(r, r["sessions_affected"][n])
                     - share(base[r["replication"]], base[r["replication"]]
                             ["sessions_affected"][n]) for r in paired]) for n in VIOLATIONS},
                "per_session_hour": {n: paired_interval(
                    [per_session_hour(r, r["violations"][n])
                     - per_session_hour(base[r["replication"]], base[r["replication"]]
                                        ["violations"][n]) for r in paired])
                    for n in VIOLATIONS}}
        summary[row] = entry
    return summary


def frame_interval(group, kind: str, columns: Sequence[str],
                   denominator: Optional[str] = None) -> Dict[str, object]:
    """The replication-level interval of one grid point and policy row of a sweep table (one
    row per replication) of the summed `columns`: the share of sessions (`kind` "share"), the
    rate per session-hour ("rate"), the ratio to the `denominator` column ("ratio": requests
    per completed call, seconds per recovery), or the value itself ("value": a time-average).
    A replication whose denominator is 0 counts as 0."""
    import numpy as np
    # a column no record has counts nothing (e.g. `requests.poll` in results from before tasks)
    counts = group.reindex(columns=list(columns), fill_value=0).sum(axis=1).to_numpy(dtype=float)
    if kind == "value":
        out = replication_interval(list(counts), None)
    else:
        column = {"share": "sessions", "rate": "session_hours"}.get(kind, denominator)
        base = group[column].to_numpy(dtype=float)
        values = list(np.divide(counts, base, out=np.zeros_like(counts), where=base > 0))
        if kind == "share":
            out = replication_interval(values, share_upper_bound(int(base.sum())), 1.0)
        elif kind == "rate":
            out = replication_interval(values, rate_upper_bound(float(base.sum())))
        else:
            out = replication_interval(values, None)
    return {k: (v.item() if hasattr(v, "item") else v) for k, v in out.items()}


def half_width(interval: Dict[str, object]) -> Optional[float]:
    """The half-width a precision target is compared with (the bound itself for a zero row);
    None when there are too few replications to have an interval."""
    if interval.get("zero"):
        return interval["hi"]
    if interval.get("lo") is None:
        return None
    return (interval["hi"] - interval["lo"]) / 2
