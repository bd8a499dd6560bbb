"""The world every SimPy component shares: the one model state, its clock and its random streams.

Components never change the state themselves: they call `World.apply(action)`, which runs the
model's transition, feeds the property monitor at the current simulated time and tells the
components concerned what happened (data for a client, a closed stream, a new session to work on).
The transition is `model.transitions.successor`: `model.apply` without its enabledness check (a
component applies only actions it knows are enabled) and without building the `Step`.

Randomness: one `SeedSequence` per replication, one stream per component and entity
(streams.py).
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Dict, Optional, Sequence, Set

import numpy as np
import simpy

from model import ConfigError, PropertyMonitor, State, initial_state
from model.history import (
    Applied,
    ClientArrived,
    ClientDeparted,
    Decided,
    Emitted,
    Initialized,
    Recreated,
    SessionEvicted,
    StreamClosed,
    TaskPolled,
)
from model.lb import route_choices
from model.monitor import duration_bin, empty_histogram
from model.policies import STATELESS_ROWS, Gate
from model.transitions import successor

from ..clients import PROFILES
from .config import DesConfig
from .streams import Streams

#: the requests a run counts: session handshakes, call POSTs, resumption GETs
REQUEST_KINDS = ("handshake", "call", "resume", "poll")


def first_of(env: simpy.Environment, wake: simpy.Event, delay: float) -> simpy.Event:
    """An event that succeeds once `wake` has or `delay` seconds have passed, whichever comes
    first. It is scheduled exactly as SimPy's `wake | env.timeout(delay)` would be (the timer
    is scheduled here; the event one step after the first of the two is processed), so a run
    unfolds identically; it only skips building the condition's value, which nobody reads."""
    timer = env.timeout(delay)
    gate = env.event()

    def fire(_event: simpy.Event) -> None:
        if not gate.triggered:
            gate.succeed()

    wake.callbacks.append(fire)
    timer.callbacks.append(fire)
    return gate


class World:
    """The shared state of one replication under one gate."""

    def __init__(self, env: simpy.Environment, config: DesConfig, gate: Gate,
                 seed: np.random.SeedSequence, state: Optional[State] = None,
                 row: Optional[str] = None):
        self.env = env
        self.config = config
        self.timing = config.timing
        self.row = row or gate.name
        try:
            self.profile_name = config.profile_name(self.row)
        except ConfigError:        # a user gate, not a policy row: the config's client
            self.profile_name = config.client_profile
        self.profile = PROFILES[self.profile_name]
        system = config.system.replace(transport=self.row) if self.row in STATELESS_ROWS \
            else config.system
        self.system = system.replace(on_404=self.profile.on_404, on_409=self.profile.on_409)
        self.gate = gate
        self.streams = Streams(seed)
        self.state = state if state is not None else \
            initial_state(self.system).replace(clients=(), next_ident=0)
        self.monitor = PropertyMonitor()
        self.transitions = 0
        self.flags: Dict[int, Set[str]] = {}          # client ident -> violations it met
        self.affected: Counter = Counter()            # violation -> sessions that met it
        self.outcomes: Counter = Counter()            # how clients left: done / failed / gave_up
        self.arrivals = 0
        self.arrived_at: Dict[int, float] = {}
        self.session_seconds = 0.0
        self.created: Dict[int, float] = {}           # token -> creation time
        self.active: Dict[int, float] = {}            # token -> last activity
        self.clients: Dict[int, Any] = {}             # ident -> its ClientProcess
        self.workers: Set[int] = set()                # tokens with a running SessionWorker
        self.start_worker: Callable[[int], None] = lambda token: None
        #: an execution record was written: (where: an instance or None for shared, client,
        #: result message), or a task record (where, client, task id); the record expiry
        #: schedules its TTL
        self.record_written: Callable[[Optional[int], int, int], None] = lambda *key: None
        self.recoveries = 0
        self.recovery_seconds = 0.0
        self.recovery_histogram = empty_histogram()
        #: HTTP requests the clients sent, by kind (see the event handlers below)
        self.requests: Counter = Counter()
        self.calls_completed = 0                       # results a client applied first
        self.sampler: Any = None                       # a footprint.MemorySampler, if wired
        self.faults: Any = None                        # the clients' faults.FaultClock
        #: the one way a component changes the state (`_apply`); an attribute, so that a
        #: recorder or a test can wrap it (every component calls it through the world)
        self.apply: Callable[[Any], Sequence[Any]] = self._apply
        #: a client got data again this many seconds after its stream broke (`_recovered`)
        self.recovered: Callable[[float], None] = self._recovered
        #: what `apply` does with each kind of event (one lookup per event, not a match)
        self._handlers: Dict[type, Callable[[Any, float], None]] = {
            Emitted: self._emitted, StreamClosed: self._stream_closed,
            Decided: self._decided, Initialized: self._initialized,
            Recreated: self._recreated, SessionEvicted: self._evicted,
            ClientArrived: self._arrived, ClientDeparted: self._departed,
            TaskPolled: self._polled, Applied: self._applied}

    # -- the one way to change the state ------------------------------------------------------
    def _apply(self, action) -> Sequence[Any]:
        """Run the model's transition, feed the monitor and tell the components concerned
        (the one way a component changes the state)."""
        self.state, events = successor(self.state, action, self.system, self.gate)
        self.transitions += 1
        now = self.env._now   # SimPy's clock, read past its property (a Python call per read)
        monitor, handlers = self.monitor, self._handlers
        for event in events:
            for finding in monitor.observe(now, event):     # compiled: a native call
                if finding.name != "note":  # the client it happened to (a call's owner)
                    who = event.owner if type(event) is Emitted else event.client
                    self.flags.setdefault(who, set()).add(finding.name)
            handler = handlers.get(type(event))
            if handler is not None:
                handler(event, now)
        return events

    # -- what each kind of event means to the run: the requests the clients sent (by kind: a
    # session's initialize costs the handshake, `initialize` and `notifications/initialized`,
    # and the POST of the call it (re)starts; a stateless re-issue is that POST alone; each
    # call completed for the first time is followed by the POST of the next one, if any; each
    # resumption is one GET with Last-Event-ID, whatever it was answered; each poll of a task
    # is one request, and the client process adds the repeated polls of an answer that never
    # changes, which the model holds as one), and the components it concerns
    def _emitted(self, event: Emitted, now: float) -> None:
        self.active[event.token] = now
        if event.result and not event.recorded and self.system.idempotency:
            local = self.system.execution_record == "local"
            self.record_written(event.instance if local else None, event.owner, event.msg)
        for ident in event.live_to:
            proc = self.clients.get(ident)
            if proc is not None:  # no process while a script drives the client
                proc.sent()

    def _stream_closed(self, event: StreamClosed, now: float) -> None:
        proc = self.clients.get(event.client)
        if proc is not None:
            proc.closed(event.reason)

    def _decided(self, event: Decided, now: float) -> None:
        self.requests["resume"] += 1
        self.active[event.token] = now

    def _initialized(self, event: Initialized, now: float) -> None:
        if not self.system.stateless:
            self.requests["handshake"] += 2
        self.requests["call"] += 1
        self.created[event.token] = self.active[event.token] = now
        self.start_worker(event.token)
        if self.system.tasks:      # the task record's TTL counts from its creation
            local = self.system.execution_record == "local"
            self.record_written(event.instance if local else None, event.client, event.token)

    def _recreated(self, event: Recreated, now: float) -> None:
        self.active[event.token] = now
        self.start_worker(event.token)

    def _evicted(self, event: SessionEvicted, now: float) -> None:
        self.created.pop(event.token, None)
        self.active.pop(event.token, None)

    def _arrived(self, event: ClientArrived, now: float) -> None:
        self.arrivals += 1
        self.arrived_at[event.client] = now

    def _departed(self, event: ClientDeparted, now: float) -> None:
        self._retire(event.client, now)

    def _polled(self, event: TaskPolled, now: float) -> None:
        self.requests["poll"] += 1

    def _applied(self, event: Applied, now: float) -> None:
        if event.owner == event.client and event.first_token is None \
                and self.system.is_result(event.msg):
            self.calls_completed += 1
            if event.msg < self.system.messages_per_session - 1:
                self.requests["call"] += 1

    def _retire(self, ident: int, now: float) -> None:
        self.session_seconds += now - self.arrived_at.pop(ident, now)
        for name in self.flags.pop(ident, ()):
            self.affected[name] += 1
        self.clients.pop(ident, None)
        for kind in ("work", "drop", "restart"):
            self.streams.forget(kind, ident)

    # -- helpers for components ----------------------------------------------------------------
    def route(self, token: Optional[int]) -> Optional[int]:
        """The instance the LB sends a request to now, or None if no instance is up."""
        choices = route_choices(self.state, self.system, token)
        if not choices:
            return None
        if len(choices) == 1:
            return choices[0]
        return int(choices[self.streams.rng("lb").integers(len(choices))])

    def _recovered(self, seconds: float) -> None:
        """A client got data again `seconds` after its stream broke."""
        self.recoveries += 1
        self.recovery_seconds += seconds
        self.recovery_histogram[duration_bin(seconds)] += 1

    def finish(self) -> None:
        """Close the books at the end of the replication (clients still present count too)."""
        now = self.env.now
        for ident in list(self.arrived_at):
            self._retire(ident, now)
        self.monitor.finish(now)
