"""Folding a history of `(time, event)` pairs into a `Report`, with the registry's checks.

The same fold serves every engine: `PropertyMonitor` takes events one at a time (an engine can
feed it as it goes, keeping memory flat); `check_history` folds a whole history. What counts as a
violation, a cost or a cause is decided by `model.properties`; this module only adds the
bookkeeping that needs memory: stall episodes (a stall lasts until the client progresses again,
so a dead admission while the client is already stalled is the same episode) and their
durations.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Tuple

from .history import Applied, ClientDeparted, ClientFailed, Decided, Dropped, Initialized
from .properties import COST, COSTS, SAFETY, VIOLATIONS, Finding, findings_of, hits_of

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


@dataclass
class Report:
    """What a history shows. `violations` always has every judged safety property and `costs`
    every cost; `causes` splits violations, costs and `any_duplicate` by cause."""

    violations: Dict[str, int] = field(default_factory=lambda: dict.fromkeys(VIOLATIONS, 0))
    costs: Dict[str, int] = field(default_factory=lambda: dict.fromkeys(COSTS, 0))
    causes: Dict[str, Dict[str, int]] = field(default_factory=dict)
    duplicates_by_cause: Dict[str, int] = field(default_factory=dict)
    decisions: Dict[str, int] = field(default_factory=dict)
    statuses: Dict[int, int] = field(default_factory=dict)
    effects: Dict[str, int] = field(default_factory=dict)
    resumptions: int = 0
    dedupe_drops: int = 0
    applied: int = 0
    stall_seconds: float = 0.0       # total duration of stall episodes
    stall_histogram: Dict[str, int] = field(default_factory=lambda: empty_histogram())
    stall_seconds_max: float = 0.0
    stall_episodes_ended: int = 0

    @property
    def reinits(self) -> int:
        return self.costs["reinit"]

    @property
    def routing_reinits(self) -> int:
        return self.costs["routing_reinit"]

    @property
    def failed_clients(self) -> int:
        return self.costs["abandoned"]

    def violated(self) -> Dict[str, int]:
        """Only the properties with a non-zero count."""
        return {name: n for name, n in self.violations.items() if n}

    def as_dict(self) -> dict:
        return {
            "violations": {name: self.violations[name] for name in VIOLATIONS},
            "costs": {name: self.costs[name] for name in COSTS},
            "causes": {name: dict(sorted(c.items())) for name, c in sorted(self.causes.items())},
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


class PropertyMonitor:
    """Folds history events into a Report; `finish(end_time)` closes open stall episodes.

    `observe` returns the findings of that event as counted (a stall while the client is already
    stalled is the same episode: a note, not a second stall), so a narrative can mark exactly
    what was counted."""

    def __init__(self) -> None:
        self.report = Report()
        self._decisions: Counter = Counter()
        self._statuses: Counter = Counter()
        self._effects: Counter = Counter()
        self._causes: Dict[str, Counter] = defaultdict(Counter)
        self._stalled_since: Dict[int, float] = {}

    def observe(self, time: float, event) -> List[Finding]:
        r = self.report
        # isinstance, not `match` (see `transitions.transition`)
        if isinstance(event, Applied):
            r.applied += 1
            self._progress(event.client, time)
        elif isinstance(event, Decided):
            r.resumptions += 1
            self._decisions[event.code] += 1
            self._statuses[event.status] += 1
            self._effects[event.effect] += 1
        elif isinstance(event, (Initialized, ClientFailed, ClientDeparted)):
            self._progress(event.client, time)
        elif isinstance(event, Dropped):
            r.dedupe_drops += 1
        hits = hits_of(event)
        for prop, hit in hits:
            if prop.kind == COST:
                r.costs[prop.name] += hit.count
                self._causes[prop.name][hit.cause] += hit.count
            elif prop.kind == SAFETY and not prop.judged:
                self._causes[prop.name][hit.cause] += hit.count
        found = findings_of(event, hits)
        for i, finding in enumerate(found):
            if finding.name == "stall":
                if event.client in self._stalled_since:
                    found[i] = Finding("note", 0, "still stalled (same episode)")
                    continue
                self._stalled_since[event.client] = time
            if finding.name != "note":
                r.violations[finding.name] += finding.count
                self._causes[finding.name][finding.cause] += finding.count
        return found

    def causes_of(self, name: str) -> Dict[str, int]:
        """What has been counted so far for one property, by cause."""
        return dict(self._causes.get(name, {}))

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
        r.causes = {name: dict(c) for name, c in self._causes.items() if c}
        r.duplicates_by_cause = dict(self._causes.get("any_duplicate", {}))
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
