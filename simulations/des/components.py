"""SimPy components of the clients' side (desmod style: small classes whose behaviour is a
generator method or a chain of timer callbacks): each client's process and reader, and the
arrivals of new clients (each with its faults, `faults.py`). The servers' side is in
`servers.py`.

Each component decides *when* an action happens; the model decides *what* it does. Every action
goes through `World.apply`, so the protocol logic lives only in `model/`.
"""
from __future__ import annotations

from typing import Any, Generator, Optional, Sequence, cast

import simpy

from model import (
    Arrive,
    Deliver,
    Depart,
    IdleTimeout,
    Init,
    Persist,
    Reconnect,
)
from model.history import Applied, TaskPolled
from model.state import Client

from .faults import ClientFaults
from .world import World, first_of

CLEAN_CLOSES = ("server_close", "idle_timeout")
INFINITY = float("inf")
#: closes that break nothing: the client left, or its stateless request is over
NOT_BREAKS = ("client_left", "complete")


class ClientProcess:
    """One client: initialize, apply what arrives, persist its cursor every k events, reconnect
    with its profile's backoff, re-initialize or give up as the profile says, then leave.

    What arrives is applied by the client's reader, not its process: a chain of timer
    callbacks that applies the messages in flight one per network latency, in order, for as
    long as the stream that carried them stays open (a tick of a stream closed since is void).
    The process sleeps through the data: it wakes when the stream closes, when the last
    message is applied, or at the idle or call deadline, which data only moves later (a
    deadline reached early is computed again and slept to).

    A profile with a request timeout (the TypeScript SDK's 60 s) also gives up when a call's
    result has not arrived that long after the call began (at initialize, or when the previous
    call's result was applied), whatever the stream is doing: a stream that stays open and
    silent fails the call instead of waiting forever.
    """

    def __init__(self, world: World, slot: int, ident: int):
        self.world, self.slot, self.ident = world, slot, ident
        self.present = True
        self.attempts = 0            # reconnects since the last data (the profile's retries)
        self.unpersisted = 0
        self.last_data = world.env.now
        self.call_since = world.env.now   # when the call now waiting for its result began
        self.broken_at: Optional[float] = None
        #: a call's timeout (None: none; a task's POST is answered at once with its handle)
        self.request_timeout = None if world.system.tasks else world.profile.request_timeout
        self._wake = world.env.event()
        self.closes = 0                  # streams closed so far: names the open stream
        self.reading: Optional[int] = None   # the stream whose next reader tick is scheduled
        self.deliver = Deliver(slot)     # actions are values: one serves every delivery
        world.clients[ident] = self
        world.env.process(self.run())

    def sent(self) -> None:
        """A message was sent live on this client's stream. A task's poll held open is thereby
        answered: the process wakes too (no repeated poll is counted while it reads)."""
        self.feed()
        if self.world.system.tasks:
            self.wake()

    def feed(self) -> None:
        """Messages are in flight on the open stream: make sure a reader tick is due."""
        if self.reading != self.closes and self.present:
            self.reading = self.closes
            tick = self.world.env.timeout(self.world.timing.latency, self.closes)
            tick.callbacks.append(self._read)

    def _read(self, tick) -> None:
        """A reader tick: apply the next message in flight, then schedule the next tick or,
        where the process must act on it, wake the process (the session's last message; a
        task's poll answered, after which the client polls again)."""
        if tick.value != self.closes or not self.present:
            return                       # the stream it read has closed since
        self.reading = None
        client = self._client()
        if client.phase == "open" and client.inflight:
            self._deliver()
            client = self._client()
        if client.phase == "open" and client.inflight:
            self.feed()
        elif self.world.system.tasks or self._finished(client):
            self.wake()

    def wake(self) -> None:
        if not self._wake.triggered:
            self._wake.succeed()

    def closed(self, reason: str) -> None:
        if reason in CLEAN_CLOSES and self.world.profile.reset_on_clean_close:
            self.attempts = 0
        polled = self.world.system.tasks and reason == "server_close"  # a poll answered
        if self.broken_at is None and reason not in NOT_BREAKS and not polled:
            self.broken_at = self.world.env.now
        self.closes += 1
        self.wake()

    def _client(self) -> Client:
        return self.world.state.clients[self.slot]

    def _call_time_left(self) -> float:
        """Seconds until the waiting call times out (infinite without a request timeout, and
        with tasks: the call's POST is answered at once with the task handle)."""
        timeout = self.request_timeout
        if timeout is None:
            return INFINITY
        return self.call_since + timeout - self.world.env.now

    def _leave(self, outcome: str) -> None:
        self.world.outcomes[outcome] += 1
        self.present = False
        self.world.apply(Depart(self.slot))

    def run(self) -> Generator[simpy.Event, Any, None]:
        w, env = self.world, self.world.env
        t, profile, slot = w.timing, w.profile, self.slot
        while True:
            client = w.state.clients[slot]
            if self._finished(client):
                return self._leave("done")
            if client.phase == "failed":
                return self._leave("failed")
            if self.attempts > profile.max_retries or self._call_time_left() <= 0:
                return self._leave("gave_up")
            if client.phase == "open":
                if client.inflight:
                    self.feed()          # the reader applies them; the process sleeps
                elif w.system.tasks:     # held on a "working" answer that never changes:
                    self._wake = env.event()     # the client polls again and again, each
                    yield first_of(env, self._wake, t.poll_interval)   # poll a request
                    if self._client().phase == "open" and not self._client().inflight:
                        w.requests["poll"] += 1
                    continue
                idle_left = self.last_data + t.idle_timeout - env.now
                if w.system.stateless:   # the server pings a silent POST response (the MCP
                    idle_left = float("inf")   # Python SDK 2.3): no LB idle timeout ends it
                if idle_left <= 0 and not client.inflight:
                    w.apply(IdleTimeout(self.slot))
                    continue
                sleep = min(idle_left, self._call_time_left())
                self._wake = env.event()          # (a deadline passed with data in flight:
                yield first_of(env, self._wake, sleep if sleep > 0 else t.latency)  # its tick)
                continue
            # new, needs_init or idle: send a request after the backoff (a stateless client
            # re-issues its unfinished calls on the same schedule as a reconnect); a client
            # holding a task handle polls it every poll interval, and a poll is no retry
            if client.phase == "idle" and w.system.tasks:
                yield env.timeout(t.poll_interval)
                client = self._client()
                if client.phase == "idle" and client.token is not None:
                    instance = w.route(None)
                    if instance is not None:
                        self._polled(w.apply(Reconnect(self.slot, instance)))
                continue
            if client.phase == "idle" or self.attempts or \
                    (w.system.stateless and client.inits > 0):
                yield env.timeout(min(profile.delay(self.attempts),
                                      max(self._call_time_left(), 0.0)))
                if self._call_time_left() <= 0:
                    continue
            self.attempts += 1
            yield env.timeout(t.latency)
            client = self._client()
            if client.phase not in ("new", "needs_init", "idle"):
                continue
            token = client.token if client.phase == "idle" else None
            instance = w.route(token)
            if instance is None:
                continue  # connection refused: no instance up
            action = Reconnect if client.phase == "idle" else Init
            w.apply(action(self.slot, instance))
            if self._client().phase == "open":
                self.last_data = env.now
                if action is Init:        # a new session's first call starts now
                    self.call_since = env.now

    def _finished(self, client: Client) -> bool:
        """Every message of the session applied or known missed."""
        messages = self.world.system.messages_per_session
        return len(client.applied) + len(client.missed) >= messages and \
            len({k for k, _ in client.applied} | client.missed) >= messages

    def _polled(self, events: Sequence[Any]) -> None:
        """A poll that finds the task lost (no record) or orphaned (no worker) is where the
        client learns of the fault: its recovery time counts from here."""
        for event in events:
            if type(event) is TaskPolled and event.outcome in ("unknown", "orphaned") \
                    and self.broken_at is None:
                self.broken_at = self.world.env.now

    def _deliver(self) -> None:
        w = self.world
        now = w.env._now      # SimPy's clock, read once past its property (as World._apply)
        for found in w.apply(self.deliver):
            if type(found) is not Applied:
                continue
            event = cast(Applied, found)    # compiled: its fields read natively, not by name
            if event.owner == self.ident:
                self.attempts = 0
                self.last_data = now
                if self.broken_at is not None and event.first_token is None:   # new data: a
                    # re-delivery (a stale cursor's replay, a re-issued call's progress) is
                    # not progress: a client restarted on an orphaned task gets its last
                    # message again and is still stalled
                    w.recovered(now - self.broken_at)
                    self.broken_at = None
                self.unpersisted += 1
                if w.system.is_result(event.msg):
                    self.call_since = now
        if self.unpersisted >= w.timing.persist_every and self._client().token is not None \
                and (w.system.tasks or not w.system.stateless):   # a session or a task handle
            self.unpersisted = 0
            w.apply(Persist(self.slot))


class Arrivals:
    """Client sessions arriving as a Poisson process."""

    def __init__(self, world: World):
        self.world = world
        if world.timing.arrival_rate > 0:
            world.env.process(self.run())

    def run(self) -> Generator[simpy.Event, Any, None]:
        w = self.world
        gaps = w.streams.exponentials("arrivals")
        while True:
            yield w.env.timeout(gaps.gap(1.0 / w.timing.arrival_rate))
            arrived = w.apply(Arrive())[0]
            ClientFaults(w, ClientProcess(w, arrived.slot, arrived.client))
