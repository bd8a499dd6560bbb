"""The §4 properties, computed from a history of `(time, event)` pairs.

The same checks serve every engine. `PropertyMonitor` folds events one at a time (an engine can
feed it as it goes, keeping memory flat); `check_history` folds a whole history.

Canonical violations (a policy is judged on these):
  duplicate_delivery      a client applied its own message again, for a server-caused reason
  duplicate_side_effect   ... and the message was a call's result (non-idempotent)
  silent_loss             a client skipped one of its messages for good without being told
  cross_session_delivery  a client applied another session's message
  stall                   a stream admitted with 200 on which no data can ever arrive while the
                          client is owed messages (an episode lasts until it progresses again)
  needless_reinit         a 404 from an instance whose own process held the session live: the
                          in-flight state was intact and the client is told to throw it away

Duplicates are attributed to a cause. Server-caused: `cross_generation` (replayed or re-run
across a recreated generation), `restart_from_head` (cursor ignored), `foreign_cursor` (another
session's cursor admitted). Client-caused, not held against a policy: `stale_cursor` (a lagging
cursor within one generation: at-least-once by design, dedupe by event id absorbs it) and
`reissued_request` (the client re-initialized and re-issued an unfinished call).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, NamedTuple, Optional, Tuple

from .history import (Applied, ClientDeparted, ClientFailed, Decided, Dropped, GapAccepted,
                      Initialized)

#: upper edges (seconds) of the duration histograms kept instead of lists of durations
DURATION_EDGES = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0,
                  3600.0, float("inf"))


def duration_bin(seconds: float) -> str:
    """The histogram bin of a duration: "le_<upper edge>" (the last one is "le_inf")."""
    for edge in DURATION_EDGES:
        if seconds <= edge:
            return f"le_{edge:g}"
    return "le_inf"


def empty_histogram() -> Dict[str, int]:
    return {f"le_{edge:g}": 0 for edge in DURATION_EDGES}


VIOLATIONS = ("duplicate_delivery", "duplicate_side_effect", "silent_loss",
              "cross_session_delivery", "stall", "needless_reinit")
SERVER_CAUSES = ("cross_generation", "restart_from_head", "foreign_cursor")
CLIENT_CAUSES = ("stale_cursor", "reissued_request")


def duplicate_cause(event: Applied) -> str:
    """Why a client got a message it had already applied."""
    if event.via == "head":
        return "restart_from_head"
    if event.cursor_foreign:
        return "foreign_cursor"
    if event.first_token != event.token:
        return "reissued_request"
    if event.first_generation != event.generation or (
            event.client_gen is not None and event.serving_gen != event.client_gen):
        return "cross_generation"
    return "stale_cursor"


@dataclass
class Report:
    """What a history shows. `violations` always has every canonical name."""

    violations: Dict[str, int] = field(default_factory=lambda: dict.fromkeys(VIOLATIONS, 0))
    duplicates_by_cause: Dict[str, int] = field(default_factory=dict)
    decisions: Dict[str, int] = field(default_factory=dict)
    statuses: Dict[int, int] = field(default_factory=dict)
    effects: Dict[str, int] = field(default_factory=dict)
    resumptions: int = 0
    reinits: int = 0
    routing_reinits: int = 0
    failed_clients: int = 0
    dedupe_drops: int = 0
    applied: int = 0
    stall_seconds: float = 0.0       # total duration of stall episodes
    stall_histogram: Dict[str, int] = field(default_factory=lambda: empty_histogram())
    stall_seconds_max: float = 0.0
    stall_episodes_ended: int = 0

    def violated(self) -> Dict[str, int]:
        """Only the properties with a non-zero count."""
        return {name: n for name, n in self.violations.items() if n}

    def as_dict(self) -> dict:
        return {
            "violations": {name: self.violations[name] for name in VIOLATIONS},
            "duplicates_by_cause": dict(sorted(self.duplicates_by_cause.items())),
            "decisions": dict(sorted(self.decisions.items())),
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "effects": dict(sorted(self.effects.items())),
            "resumptions": self.resumptions,
            "reinits": self.reinits,
            "routing_reinits": self.routing_reinits,
            "failed_clients": self.failed_clients,
            "dedupe_drops": self.dedupe_drops,
            "applied": self.applied,
            "stall_seconds": self.stall_seconds,
            "stall_seconds_max": self.stall_seconds_max,
            "stall_histogram": dict(self.stall_histogram),
        }


class Finding(NamedTuple):
    """What one event counted: a violation (`name` in VIOLATIONS) or a "note"."""

    name: str
    count: int
    detail: str


def findings_of(event) -> List[Finding]:
    """What one event shows on its own (stateless): the violations it is, and notes. The
    explorer checks every transition with this; `PropertyMonitor` adds the bookkeeping."""
    kind = type(event)
    if kind is Applied:
        if event.owner != event.client:
            return [Finding("cross_session_delivery", 1,
                            f"a message of c{event.owner} (session S{event.token})")]
        found: List[Finding] = []
        if event.holes:
            skipped = ", ".join(f"m{m}" for m in event.holes)
            found.append(Finding("silent_loss", len(event.holes), f"{skipped} skipped unannounced"))
        if event.duplicate:
            cause = duplicate_cause(event)
            if cause in SERVER_CAUSES:
                found.append(Finding("duplicate_delivery", 1, cause))
                if event.side_effect:
                    found.append(Finding("duplicate_side_effect", 1, cause))
            else:
                found.append(Finding("note", 0, f"duplicate, client-caused ({cause})"))
        return found
    if kind is Decided:
        found = []
        if event.status == 404:
            if event.held_locally:
                found.append(Finding("needless_reinit", 1, "this process holds the session live"))
            elif event.live_elsewhere:
                found.append(Finding("note", 0, "routing re-init: the session is live "
                                                "elsewhere, not here"))
        if event.dead:
            found.append(Finding("stall", 1, "admitted, but no data can ever arrive"))
        return found
    if kind is GapAccepted and event.told:
        lost = ", ".join(f"m{m}" for m in event.told)
        return [Finding("note", 0, f"gap told: {lost} lost with notice")]
    if kind is Dropped and event.new:
        return [Finding("note", 0, "a new message dropped: its id was reused")]
    return []


class PropertyMonitor:
    """Folds history events into a Report; `finish(end_time)` closes open stall episodes.

    `observe` returns the findings of that event as counted (a dead admission while the client
    is already stalled is the same episode: a note, not a second stall), so a narrative can
    mark exactly what was counted."""

    def __init__(self) -> None:
        self.report = Report()
        self._decisions: Counter = Counter()
        self._statuses: Counter = Counter()
        self._effects: Counter = Counter()
        self._causes: Counter = Counter()
        self._stalled_since: Dict[int, float] = {}

    def observe(self, time: float, event) -> List[Finding]:
        kind = type(event)
        r = self.report
        if kind is Applied:
            r.applied += 1
            self._progress(event.client, time)
            if event.duplicate and event.owner == event.client:
                self._causes[duplicate_cause(event)] += 1
        elif kind is Decided:
            r.resumptions += 1
            self._decisions[event.code] += 1
            self._statuses[event.status] += 1
            self._effects[event.effect] += 1
            if event.status == 404 and not event.held_locally and event.live_elsewhere:
                r.routing_reinits += 1
        elif kind is Initialized:
            self._progress(event.client, time)
            if event.reissue:
                r.reinits += 1
        elif kind is ClientFailed:
            self._progress(event.client, time)
            r.failed_clients += 1
        elif kind is ClientDeparted:
            self._progress(event.client, time)
        elif kind is Dropped:
            r.dedupe_drops += 1
        found = findings_of(event)
        for i, finding in enumerate(found):
            if finding.name == "stall":
                if event.client in self._stalled_since:
                    found[i] = Finding("note", 0, "still stalled (same episode)")
                    continue
                self._stalled_since[event.client] = time
            if finding.name != "note":
                r.violations[finding.name] += finding.count
        return found

    def _progress(self, client: int, time: float) -> None:
        since = self._stalled_since.pop(client, None)
        if since is not None:
            self._end_stall(time - since)

    def _end_stall(self, seconds: float) -> None:
        r = self.report
        r.stall_seconds += seconds
        r.stall_seconds_max = max(r.stall_seconds_max, seconds)
        r.stall_histogram[duration_bin(seconds)] += 1
        r.stall_episodes_ended += 1

    def finish(self, end_time: Optional[float] = None) -> Report:
        r = self.report
        if end_time is not None:
            for client in sorted(self._stalled_since):
                self._end_stall(end_time - self._stalled_since[client])
            self._stalled_since.clear()
        r.decisions = dict(self._decisions)
        r.statuses = dict(self._statuses)
        r.effects = dict(self._effects)
        r.duplicates_by_cause = dict(self._causes)
        return r


def check_history(history: Iterable[Tuple[float, object]],
                  end_time: Optional[float] = None) -> Report:
    """Fold a whole history into a Report."""
    monitor = PropertyMonitor()
    last = None
    for time, event in history:
        monitor.observe(time, event)
        last = time
    return monitor.finish(end_time if end_time is not None else last)
