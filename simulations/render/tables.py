"""Rendering of DES summaries: the same tables as aligned text (the CLI) and Markdown (REPORT.md).

A table is (title, header, rows) built once; `text` and `markdown` format it. Every number
carries its unit in the title, and an interval is printed as `mean [lo, hi]` (95%, from
replication means) or, when every replication had zero, `0 (< hi)` with the one-sided bound.
"""
from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from model import COSTS, VIOLATIONS, properties
from model.properties import LABELS

if TYPE_CHECKING:
    from .des.config import DesConfig

Table = Tuple[str, List[str], List[List[str]]]


def interval(i: Optional[dict], scale: float = 1.0, digits: int = 1, unit: str = "") -> str:
    """`mean [lo, hi]`, `0 (< hi)` for a zero row, or the bare mean without an interval;
    `unit` follows each number that stands alone (`12.5% [10.1, 14.9]`, `0% (< 0.3%)`)."""
    if i is None:
        return "-"
    if i.get("zero"):
        return f"0{unit}" if i.get("hi") is None else \
            f"0{unit} (< {i['hi'] * scale:.{digits + 1}f}{unit})"
    mean = i["mean"] * scale
    if i.get("lo") is None:
        return f"{mean:.{digits}f}{unit}"
    return (f"{mean:.{digits}f}{unit} [{i['lo'] * scale:.{digits}f}, "
            f"{i['hi'] * scale:.{digits}f}]")


def summary_tables(summary: Dict[str, dict], rows: Sequence[str],
                   baseline: Optional[str]) -> List[Table]:
    """The tables of a DES comparison, one row per policy row (with its client profile)."""
    short = [LABELS[n] for n in VIOLATIONS]
    tables: List[Table] = []
    tables.append((
        "Sessions that met each violation: % of sessions (mean over replications, 95% "
        "t-interval; `0 (< x)`: none in any replication, x = one-sided 95% upper bound)",
        ["policy", "client", "sessions"] + short,
        [[p, str(summary[p]["client_profile"]), str(summary[p]["sessions"])]
         + [interval(summary[p]["share_of_sessions"][n], 100) for n in VIOLATIONS]
         for p in rows]))
    tables.append((
        "Violations per session-hour (events; mean over replications, 95% t-interval; "
        "session-hours are measured from arrival to departure, so a policy whose clients give "
        "up early has fewer)",
        ["policy", "session-hours"] + short,
        [[p, f"{summary[p]['session_hours']:.0f}"]
         + [interval(summary[p]["per_session_hour"][n], 1, 2) for n in VIOLATIONS]
         for p in rows]))
    paired = [p for p in rows if "paired_vs_baseline" in summary[p]]
    if paired:
        tables.append((
            f"Paired difference against `{baseline}`: percentage points of sessions (same "
            "replication seeds; 95% t-interval of the per-replication differences)",
            ["policy"] + short,
            [[p] + [interval(summary[p]["paired_vs_baseline"]["share_of_sessions"][n], 100)
                    for n in VIOLATIONS] for p in paired]))
    tables.append((
        "Cost of safety, per session-hour (mean over replications, 95% t-interval); "
        "abandoned sessions as % of sessions",
        ["policy", "stall s"] + [LABELS[n] for n in COSTS] + ["sessions abandoned %"],
        [[p, interval(summary[p]["stall_seconds_per_session_hour"])]
         + [interval(summary[p]["costs_per_session_hour"][n], 1, 2) for n in COSTS]
         + [interval(summary[p]["sessions_abandoned"], 100)] for p in rows]))
    tables.append((
        "What each design costs in requests, recovery and server memory (mean over "
        "replications, 95% t-interval): HTTP requests per completed call (a session's "
        "handshake, call POSTs, resumption GETs); seconds from a broken stream to the client's "
        "next data; entries the servers hold between requests (session records, buffered "
        "events, execution records; time-average, and the largest sample)",
        ["policy", "requests / call", "recovery s", "session records", "buffered events",
         "execution records", "entries held", "peak entries"],
        [[p, interval(summary[p]["requests_per_completed_call"], 1, 3),
          interval(summary[p]["recovery_seconds_mean"], 1, 2)]
         + [interval(summary[p]["memory_mean"][k], 1, 0)
            for k in ("session_records", "buffered_events", "execution_records", "entries")]
         + [interval(summary[p]["memory_peak"], 1, 0)] for p in rows]))
    tables.append((
        "Conditional on resuming: events per 1,000 resumptions (the denominator depends on "
        "the policy, so compare rows with care; DUP counts duplicated messages)",
        ["policy", "resumptions / replication"] + short,
        [[p, interval(summary[p]["resumptions"], 1, 0)]
         + [interval(summary[p]["per_1000_resumptions"][n]) for n in VIOLATIONS]
         for p in rows]))
    return tables


def legend() -> str:
    return properties.legend(VIOLATIONS) + "; " + properties.legend(COSTS)


def text(table: Table) -> str:
    title, header, rows = table
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]
    lines = [title.replace("`", ""), "  ".join(h.ljust(w) for h, w in zip(header, widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines)


def markdown(table: Table, with_title: bool = True, aligned: bool = False) -> str:
    """A Markdown table (its title above, unless `with_title` is False); `aligned` pads every
    column to its widest cell, so the source reads as a table too (files people open as text)."""
    title, header, rows = table
    lines = ([title + ":", ""] if with_title else [])
    if aligned:
        widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
        line = lambda cells: "| " + " | ".join(  # noqa: E731
            str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
        lines += [line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
        lines += [line(r) for r in rows]
    else:
        lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def comparison_text(config: "DesConfig", summary: Dict[str, dict], name: str,
                    precision: Optional[dict] = None) -> str:
    """A DES comparison as aligned text: the deployment, timing and clients, then the tables
    (what `run` prints, and notebook 02 shows)."""
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
    head += ["\n" + text(table)
             for table in summary_tables(summary, rows, config.baseline)]
    return "\n".join(head) + f"\n\n{legend()}"


def _precision_line(p: dict) -> str:
    if p["met"]:
        return (f"precision: every headline half-width <= {p['target_half_width']:g} after "
                f"{p['replications']} replications (rounds {p['rounds']})")
    worst = ", ".join(f"{row} {LABELS[n]} {'n/a' if h is None else f'{h:.4f}'}"
                      for row, v in p["unmet"].items() for n, h in v.items())
    return (f"precision: NOT MET at the cap of {p['cap']} replications for target "
            f"{p['target_half_width']:g}: {worst}")
