"""What the servers hold between requests, sampled over simulated time (a DES cost).

Three kinds of entry, counted over every instance and the shared stores:

- `session_records`: sessions an instance holds in memory plus sessions in the shared registry
  (a session live on an instance and stored in the registry is held twice, and counts twice);
- `buffered_events`: events retained in replay buffers (instance-local and shared);
- `execution_records`: idempotency records, or task records on the tasks transport
  (instance-local and shared); the messages a task record keeps for polls count as
  `buffered_events`.

A stateless request in flight is not counted: it is the work itself, not state kept for a
later request. The sampler reads the model state every `SAMPLE_INTERVAL` simulated seconds
(it only reads: no random draw, no transition, so every other number of a run is unchanged)
and keeps, per kind, the time-average (the mean over samples) and the largest sample.
"""
from __future__ import annotations

from typing import Any, Dict, Generator

import simpy

from model import State
from model.entries import Buffer

KINDS = ("session_records", "buffered_events", "execution_records")
#: simulated seconds between two samples of the state
SAMPLE_INTERVAL = 5.0


def _task_entries(records: Any) -> int:
    """Messages kept in task records (an idempotency record's value is a request id)."""
    return sum(len(value.entries) for _, value in records if isinstance(value, Buffer))


def held(state: State) -> Dict[str, int]:
    """Entries of each kind the servers hold in `state`."""
    sessions = len(state.registry)
    events = sum(len(buffer.entries) for _, buffer in state.buffers)
    records = len(state.records)
    events += _task_entries(state.records)
    for instance in state.instances:
        if instance.status != "down":
            sessions += len(instance.sessions)
            events += sum(len(buffer.entries) for _, buffer in instance.buffers)
            records += len(instance.records)
            events += _task_entries(instance.records)
    return {"session_records": sessions, "buffered_events": events,
            "execution_records": records}


class MemorySampler:
    """Samples `held` every SAMPLE_INTERVAL seconds; `summary()` gives mean and peak per kind
    and of their sum (`entries`)."""

    def __init__(self, world: Any) -> None:
        self.world = world
        self.samples = 0
        self.totals = dict.fromkeys(KINDS + ("entries",), 0)
        self.peaks = dict.fromkeys(KINDS + ("entries",), 0)
        self.stateless = world.system.stateless
        world.env.process(self.run())

    def run(self) -> Generator[simpy.Event, Any, None]:
        env = self.world.env
        while True:
            yield env.timeout(SAMPLE_INTERVAL)
            now = held(self.world.state)
            if self.stateless:          # a stateless instance's `sessions` are requests in
                now["session_records"] = 0     # flight, not state kept between requests
            now["entries"] = sum(now.values())
            self.samples += 1
            for kind, value in now.items():
                self.totals[kind] += value
                self.peaks[kind] = max(self.peaks[kind], value)

    def summary(self) -> Dict[str, Dict[str, float]]:
        n = self.samples
        return {"mean": {k: (self.totals[k] / n if n else 0.0) for k in self.totals},
                "peak": dict(self.peaks)}
