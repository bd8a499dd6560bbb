"""Client faults: network drops of a client's open stream and restarts of its process, each a
Poisson process per client, whose gaps come from the client's own streams ("drop", "restart").

A fault is due at the time SimPy's `env.timeout(gap)` would give (now + gap), and when it comes
the client's state decides what it does (a drop only cuts an open stream; a restart needs a
session begun); the client's next fault of that kind is then drawn, while the client is
present. A client that has left has no more faults.

Where the faults wait is a matter of speed, not of what happens (tests compare the two):
every fault of every client waits on one `FaultClock`, which keeps one timer in SimPy's event
queue, for the earliest fault of a present client. As one SimPy timer each, a fault would stay
queued after its client left (most queued timers of a replication would be such), and every
push and pop of SimPy's queue costs a comparison per level of the queue's heap.
"""
from __future__ import annotations

from heapq import heappop, heappush
from typing import Any, Dict, List, Tuple, cast

import simpy

from model import ClientRestart, Disconnect

from .streams import Exponentials
from .world import World

INFINITY = float("inf")

#: True: every client's faults wait on one `FaultClock`; False: each fault is a SimPy timer of
#: its own (the definition; tests compare the two). A module attribute read for every client,
#: so switching it works for the compiled DES too.
FAULTS_ON_ONE_CLOCK = True


class At:
    """A delay that SimPy turns into the time `due` exactly. SimPy schedules an event at
    `now + delay`; the time of a fault was computed as `then + gap` when it was drawn, and
    `now + (due - now)` in floating point is not always `due` (a last bit can round the other
    way). `At(due)` added to any `now <= due` is `due`."""

    def __init__(self, due: float):
        self.due = due

    def __radd__(self, now: float) -> float:
        assert now <= self.due
        return self.due

    def __lt__(self, other: float) -> bool:   # SimPy refuses a negative delay
        return False

    def __repr__(self) -> str:
        return f"At({self.due!r})"


class ClientFaults:
    """One client's faults: for each kind with a positive rate, its gaps and their mean."""

    def __init__(self, world: World, client: Any):
        self.world, self.client = world, client
        self.draws: Dict[str, Tuple[Exponentials, float]] = {}
        for kind, rate in (("drop", world.timing.drop_rate),
                           ("restart", world.timing.client_restart_rate)):
            if rate > 0:
                self.draws[kind] = (world.streams.exponentials(kind, client.ident), 1.0 / rate)
                self.schedule(kind)

    def schedule(self, kind: str) -> None:
        """Draw the client's next fault of `kind`."""
        gaps, mean = self.draws[kind]
        if FAULTS_ON_ONE_CLOCK:
            self.world.faults.add(self, kind, gaps.gap(mean))
        else:
            tick = self.world.env.timeout(gaps.gap(mean), kind)
            tick.callbacks.append(self._tick)

    def _tick(self, tick: simpy.Event) -> None:
        self.fault(cast(str, tick.value))

    def fault(self, kind: str) -> None:
        """The fault is due now: it acts if the client's state lets it, and the client's next
        fault of that kind is drawn while the client is present."""
        w, c = self.world, self.client
        if not c.present:
            return
        phase = w.state.clients[c.slot].phase
        if kind == "drop" and phase == "open":
            w.apply(Disconnect(c.slot))
        elif kind == "restart" and phase not in ("new", "gone"):
            w.apply(ClientRestart(c.slot))
            c.wake()
        if c.present:
            self.schedule(kind)


class FaultClock:
    """The faults due, earliest first (ties in the order they were drawn), behind one SimPy
    timer set for the earliest fault of a present client. Invariant: while a present client
    has a fault pending, the current timer (`armed`) is due no later than it; a timer made
    current by a later `arm` leaves the earlier one void (it fires and does nothing). A fault
    is anything with a `client` (its `present` says whether it is still there) and a
    `fault(kind)`: a `ClientFaults`."""

    def __init__(self, env: simpy.Environment):
        self.env = env
        self.pending: List[Tuple[float, int, str, Any]] = []   # a heap
        self.drawn = 0              # faults drawn so far (orders ties)
        self.armed = INFINITY       # when the current timer fires (infinity: no timer)
        self.timers = 0             # timers set so far: the current one is the last
        self.firing = False

    def add(self, faults: Any, kind: str, gap: float) -> None:
        due: float = self.env._now + gap   # the sum env.timeout(gap) would make
        heappush(self.pending, (due, self.drawn, kind, faults))
        self.drawn += 1
        if due < self.armed and not self.firing:
            self._arm(due)

    def _arm(self, due: float) -> None:
        self.armed = due
        self.timers += 1
        timer = simpy.Timeout(self.env, At(due), self.timers)   # type: ignore[arg-type]
        timer.callbacks.append(self._fire)

    def _fire(self, timer: simpy.Event) -> None:
        """The current timer fired: the earliest fault acts (one fault per timer, as one
        timer per fault would), then the timer is set for the next present client's."""
        if timer.value != self.timers:
            return                       # void: an earlier fault was drawn since
        self.armed = INFINITY
        pending = self.pending
        due, _, kind, faults = heappop(pending)
        assert due == self.env._now      # the earliest fault is the one armed for
        self.firing = True               # faults drawn now wait for the arm below
        try:
            faults.fault(kind)
        finally:
            self.firing = False
        while pending and not pending[0][3].client.present:
            heappop(pending)             # a fault of a client that left: it does nothing
        if pending:
            self._arm(pending[0][0])
