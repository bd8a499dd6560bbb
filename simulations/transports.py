"""Sessions or no sessions: the designs compared on one bounded scope by the explorer.

One deployment (two instances behind a round-robin LB, one client with two one-message,
non-idempotent calls) and one fault budget (a restart, a drop, a half-open stream, three
requests), explored completely under each design: session resumption behind `strict` (shared
store and buffer, tagged ids, the spec client) and the stateless transports, plain and with
idempotency keys whose execution records are shared, local, or shared with one expiry, and
tasks (a handle, polled) whose task records are placed the same three ways. The
README's "Sessions or no sessions" table is `verdicts_markdown()` (a test keeps it equal).

How often each design breaks and what it costs, at a given fault rate, is the committed sweep
`results/sweeps/transports` (`simulations/sweeps/transports.toml`); `sweep_markdown()` is the
README's one table from it: one row per deployment and design at one grid point, never pooled.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Tuple

from model import SystemConfig
from model.properties import BY_NAME, VIOLATIONS

from .explore.scope import Scope
from .explore.search import explore
from .render import interval, markdown

#: the deployment every design runs on (sessions: shared store and buffer, tagged ids)
BASE = SystemConfig(instances=2, clients=1, messages_per_session=2, messages_per_call=1,
                    store="shared", buffer="shared", event_ids="tagged", lb="round_robin")
#: the fault budget every design gets (expiries only where a design has records to expire)
BUDGETS = dict(restarts=1, drops=1, half_opens=1, client_restarts=0, compactions=0,
               foreign_cursors=0, persists=0, sessions=3)


@dataclass(frozen=True)
class Design:
    label: str
    policy: str          # the gate, or the stateless transport's row name
    changes: Tuple[Tuple[str, object], ...] = ()
    expiries: int = 0

    def scope(self) -> Scope:
        system = BASE.replace(**dict(self.changes))
        return Scope(system=system, expiries=self.expiries, **BUDGETS)


DESIGNS: Tuple[Design, ...] = (
    Design("sessions, `strict` resumption", "strict"),
    Design("`stateless` (re-issue on a break)", "stateless", (("transport", "stateless"),)),
    Design("`stateless+idempotency`, shared record", "stateless+idempotency",
           (("transport", "stateless+idempotency"),)),
    Design("`stateless+idempotency`, shared record that expires once", "stateless+idempotency",
           (("transport", "stateless+idempotency"),), expiries=1),
    Design("`stateless+idempotency`, local record", "stateless+idempotency",
           (("transport", "stateless+idempotency"), ("execution_record", "local"))),
    Design("`tasks`, shared record", "tasks", (("transport", "tasks"),)),
    Design("`tasks`, shared record that expires once", "tasks", (("transport", "tasks"),),
           expiries=1),
    Design("`tasks`, local record", "tasks",
           (("transport", "tasks"), ("execution_record", "local"))),
)


def explore_designs() -> List[Tuple[Design, object]]:
    """Each design's exploration of the shared scope."""
    return [(design, explore(design.scope(), design.policy)) for design in DESIGNS]


def verdicts_markdown() -> str:
    """One row per design: the judged properties that fail (with the shortest trace's length
    and cause), the states of the complete search, and the costs reachable."""
    rows = []
    for design, result in explore_designs():
        verdicts = result.verdicts()
        failing = []
        for name in VIOLATIONS:
            verdict = verdicts[name]
            if verdict.verdict != "holds":
                causes = ", ".join(sorted(verdict.causes))
                failing.append(f"{BY_NAME[name].label} ({verdict.verdict}: {causes}; "
                               f"{verdict.trace_length} steps)")
        costs = ", ".join(sorted(result.costs)) or "-"
        rows.append([design.label, "; ".join(failing) or "every judged property holds",
                     f"{result.states:,}", "yes" if result.complete else "no", costs])
    return markdown(("", ["design", "violated (shortest trace)", "states", "complete",
                          "costs reachable"], rows), with_title=False)


#: the committed sweep, and the grid point the README's table reads (the default deployment's
#: restart period and drop rate)
SWEEP = Path("results/sweeps/transports")
POINT = (("param.timing.restart_period", 600.0), ("param.timing.drop_rate", 0.003))
#: (column, kind, numerator columns, denominator, scale, digits)
COLUMNS = (
    ("duplicate execution, % sessions", "share", ["sessions_affected.duplicate_execution"],
     None, 100, 2),
    ("duplicate delivery, % sessions", "share", ["sessions_affected.duplicate_delivery"],
     None, 100, 2),
    ("stall, % sessions", "share", ["sessions_affected.stall"], None, 100, 2),
    ("abandoned, % sessions", "share", ["sessions_failed", "sessions_gave_up"], None, 100, 1),
    ("calls executed again / session-h", "rate",
     ["violations.duplicate_execution", "costs.reexecuted_call"], None, 1, 2),
    ("requests / completed call", "ratio",
     ["requests.handshake", "requests.call", "requests.resume", "requests.poll"],
     "calls_completed", 1, 2),
    ("recovery s", "ratio", ["recovery_seconds"], "recoveries", 1, 1),
    ("entries held", "value", ["memory.mean.entries"], None, 1, 0),
)


def sweep_markdown(folder: Path = SWEEP) -> str:
    """The sweep at POINT: a row per deployment and design, each cell the mean over
    replications with its 95% replication-level interval (`0 (< x)`: none in any replication,
    x the one-sided upper bound)."""
    from .des.stats import frame_interval
    from .sweep.results import load_results
    frame = load_results(folder)
    for column, value in POINT:
        frame = frame[frame[column] == value]
    if frame.empty:
        raise ValueError(f"{folder}: no runs at {dict(POINT)}")
    rows = []
    for deployment in dict.fromkeys(frame["param.deployment"]):
        here = frame[frame["param.deployment"] == deployment]
        for policy in dict.fromkeys(here["policy"]):
            runs = here[here["policy"] == policy]
            rows.append([f"`{deployment}`", f"`{policy}`"] + [
                interval(frame_interval(runs, kind, cols, denominator), scale, digits)
                for _, kind, cols, denominator, scale, digits in COLUMNS])
    return markdown(("", ["deployment", "design"] + [c[0] for c in COLUMNS], rows),
                    with_title=False)
