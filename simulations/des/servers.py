"""SimPy components of the servers' side: the session workers that emit each session's
messages, rolling restarts and crashes of the instances, and the expiry of sessions and of
execution or task records. The clients' side is in `components.py`.

Each component decides *when* an action happens; the model decides *what* it does. Every action
goes through `World.apply`, so the protocol logic lives only in `model/`.
"""
from __future__ import annotations

from typing import Any, Dict, Generator, List, Optional

import simpy

from model import Drain, Emit, Evict, Expire, Start, Stop
from model.pairs import tget
from model.stateless import record_key
from model.work import emit_possible, live_tokens

from .world import World


class SessionWorker:
    """Runs a session's calls: emits its next message at exponential intervals while an
    instance holds the session at its current generation; stops when there is nothing to do
    (the world restarts it when the session is recreated). A chain of timer callbacks rather
    than a process: each tick emits and schedules the next."""

    def __init__(self, world: World, token: int):
        self.world, self.token = world, token
        world.workers.add(token)
        record = tget(world.state.registry, token)
        owner = record.client if record is not None else self._owner()
        self.gaps = world.streams.exponentials("work", owner if owner is not None else 0)
        self.interval = world.timing.event_interval
        self.emit = Emit(token)      # an action is a value: one serves every tick
        self._schedule()

    def _schedule(self) -> None:
        tick = self.world.env.timeout(self.gaps.gap(self.interval))
        tick.callbacks.append(self._tick)

    def _tick(self, _tick) -> None:
        w = self.world
        if not emit_possible(w.state, w.system, self.token):
            w.workers.discard(self.token)
            return
        w.apply(self.emit)
        self._schedule()

    def _owner(self) -> Optional[int]:
        for inst in self.world.state.instances:
            live = tget(inst.sessions, self.token)
            if live is not None:
                return live.client
        return None


def start_worker(world: World, token: int) -> None:
    if token not in world.workers:
        SessionWorker(world, token)


class Fleet:
    """Rolling restarts (drain, stop, start each instance in turn) and random crashes."""

    def __init__(self, world: World):
        self.world = world
        t = world.timing
        if t.restart_period > 0:
            world.env.process(self.rolling())
        if t.crash_rate > 0:
            for i in range(len(world.state.instances)):
                world.env.process(self.crashes(i))

    def _status(self, i: int) -> str:
        return self.world.state.instances[i].status

    def rolling(self) -> Generator[simpy.Event, Any, None]:
        w, t = self.world, self.world.timing
        while True:
            yield w.env.timeout(t.restart_period)
            for i in range(len(w.state.instances)):
                if self._status(i) == "up":
                    w.apply(Drain(i))
                yield w.env.timeout(t.drain_time)
                if self._status(i) != "down":
                    w.apply(Stop(i))
                yield w.env.timeout(t.start_time)
                if self._status(i) == "down":
                    w.apply(Start(i))

    def crashes(self, i: int) -> Generator[simpy.Event, Any, None]:
        w, t = self.world, self.world.timing
        gaps = w.streams.exponentials("crash", i)
        while True:
            yield w.env.timeout(gaps.gap(1.0 / t.crash_rate))
            if self._status(i) != "down":
                w.apply(Stop(i))
                yield w.env.timeout(t.start_time)
                if self._status(i) == "down":
                    w.apply(Start(i))


class Reaper:
    """Evicts sessions past their idle or absolute TTL (the session store's expiry)."""

    def __init__(self, world: World):
        self.world = world
        world.env.process(self.run())

    def run(self) -> Generator[simpy.Event, Any, None]:
        w, t = self.world, self.world.timing
        idle_ttl, absolute_ttl = float(t.idle_ttl), float(t.absolute_ttl)
        # tokens read as objects: compiled, a token read as an int is boxed again per lookup
        created: Dict[Any, float] = w.created
        active: Dict[Any, float] = w.active
        while True:
            yield w.env.timeout(t.reap_interval)
            now = float(w.env.now)
            live: List[int] = live_tokens(w.state, w.system)      # sorted
            j, n, last = 0, len(live), -1
            # in creation order, which is token order (a session's token is the next one):
            # both are walked together; an eviction changes no other session's creation time
            for token, born in list(created.items()):
                number: int = token
                assert number > last, "sessions created out of token order"
                last = number
                while j < n and live[j] < number:
                    j += 1
                if j == n or live[j] != number:      # not live: ended some other way
                    created.pop(token, None)
                    active.pop(token, None)
                elif now - active[token] > idle_ttl or now - born > absolute_ttl:
                    w.apply(Evict(token))


class RecordExpiry:
    """Execution records (stateless+idempotency) expire `timing.record_ttl` after they were
    written; a record written again (the call executed again where the record was not seen)
    starts its TTL again. Task records (tasks) expire `record_ttl` after the task was created
    (keyed by (where, client, task id))."""

    def __init__(self, world: World):
        self.world = world
        self.written: dict = {}          # (where, client, msg) -> time of the last write
        world.record_written = self.write

    def write(self, instance: Optional[int], client: int, msg: int) -> None:
        key = (instance, client, msg)
        self.written[key] = self.world.env.now
        self.world.env.process(self.expire(key, self.world.env.now))

    def expire(self, key: tuple, written: float) -> Generator[simpy.Event, Any, None]:
        w = self.world
        yield w.env.timeout(w.timing.record_ttl)
        if self.written.get(key) != written:
            return       # written again since: that write's TTL counts
        del self.written[key]
        instance, client, msg = key
        records = w.state.records if instance is None else w.state.instances[instance].records
        stored = msg if w.system.tasks else record_key(w.system, client, msg)
        if tget(records, stored) is not None:           # not lost with its process
            w.apply(Expire(instance, client, msg))
