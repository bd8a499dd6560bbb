"""The guard's side of event storage: ids (tagged unless the guard is given a weaker scheme,
ids.py), what the process knows of each session's streams, and the EventStore the SDK is given
(standalone, or wrapping the deployment's own store).

The SDK's `EventStore` is not told the session. The guard's middleware puts the session the
current request works for into a context variable (`CURRENT`); the SDK's session tasks are
started inside the request that created the session and inherit it. Ids minted before the SDK's
session id is known (the initialize request's priming event) carry the session's random key,
which the middleware binds to the session id when the initialize response carries it.

Invariants: a tagged or uuid id is issued once (a tagged id's second part is the generation the
process serves the session at: its incarnation, or the registry's generation of the session;
counter ids repeat, as their schemes say); a stream's retained events are the newest `capacity`
(their internal sequence numbers contiguous, right after `floor`); sessions never share a
stream, whatever their request ids. A cursor is looked up in the session's own streams (keying
"session") or, like the SDK's example store, in every stream of the process (keying "event_id":
the newest event with that id wins).
"""
from __future__ import annotations

import secrets
import uuid
from collections import deque
from contextvars import ContextVar
from typing import Deque, Dict, List, NamedTuple, Optional, Tuple

from mcp.server.streamable_http import EventCallback, EventMessage, EventStore

from . import ids
from .ids import TaggedId


class Kept(NamedTuple):
    seq: int               # position in its stream (1, 2, ...), whatever the id scheme
    event_id: str          # the id on the wire
    message: object        # the message (None: a priming event)
    inner_id: object = None  # the inner store's id for it (wrapping)
    order: Optional[int] = None  # what a range check compares (ids.order)
    generation: int = 0    # the generation of the session it was emitted at


class StreamRecord:
    """One SDK stream of one session: its retained events and its replay floor."""

    def __init__(self, stream_id: str, number: int, capacity: int) -> None:
        self.stream_id = stream_id
        self.number = number
        self.capacity = capacity
        self.events: Deque[Kept] = deque()
        self.next_seq = 1
        self.floor: Optional[Kept] = None       # the last event dropped for capacity

    def keep(self, event: Kept) -> Optional[Kept]:
        """Append `event`, dropping the oldest beyond capacity; returns the event no longer
        held at all (the previous floor), if any."""
        gone = None
        if len(self.events) == self.capacity:
            gone, self.floor = self.floor, self.events.popleft()
        self.events.append(event)
        self.next_seq = event.seq + 1
        return gone

    def holds(self, wire: Optional[str], floor_too: bool = False) -> Optional[Kept]:
        """The retained event (or, `floor_too`, the floor) whose id is `wire`; the newest."""
        for event in reversed(self.events):
            if event.event_id == wire:
                return event
        if floor_too and self.floor is not None and self.floor.event_id == wire:
            return self.floor
        return None

    def after(self, scheme: str, wire: Optional[str]) -> int:
        """The sequence number a replay "after the cursor" starts after: the cursor's own event
        (or the floor) when the stream holds it, else the position its id compares to (by
        ids.order); with no order, nothing is replayed."""
        held = self.holds(wire, floor_too=True)
        if held is not None:
            return held.seq
        key = ids.order(scheme, wire)
        if key is None:
            return self.next_seq - 1
        if scheme == "tagged":
            return key
        kept = list(self.events) + ([self.floor] if self.floor is not None else [])
        below = [e.seq for e in kept if e.order is not None and e.order <= key]
        first = self.events[0].seq if self.events else self.next_seq
        return max(below) if below else first - 1

    def anchor(self, seq: int) -> Optional[Kept]:
        """The retained event or the floor with sequence number `seq`."""
        for event in self.events:
            if event.seq == seq:
                return event
        return self.floor if self.floor is not None and self.floor.seq == seq else None


class Binding:
    """One session as the guard knows it; `number` is its session number in the model's view."""

    def __init__(self, number: int, key: str, generation: int = 0) -> None:
        self.number = number
        self.key = key
        self.generation = generation        # the session's generation this process serves
        self.session_id: Optional[str] = None
        self.streams: Dict[str, StreamRecord] = {}
        self.by_number: List[StreamRecord] = []
        self.latest: Optional[StreamRecord] = None   # the stream that last stored a message
        self.counter = 0                    # the per-session id counter (ids "per_session")

    def own_stream(self, wire: Optional[str]) -> Optional[StreamRecord]:
        """S's replay buffer as the model sees it (one per session): the stream of S that holds
        or just dropped the cursor (a tagged cursor names it), else the stream that last carried
        a message."""
        tagged = TaggedId.parse(wire) if wire is not None else None
        if tagged is not None and tagged.key == self.key \
                and 0 <= tagged.stream < len(self.by_number):
            return self.by_number[tagged.stream]
        for stream in self.by_number:
            if stream.holds(wire, floor_too=True):
                return stream
        return self.latest

    def stream(self, stream_id: str, capacity: int) -> StreamRecord:
        found = self.streams.get(stream_id)
        if found is None:
            found = StreamRecord(stream_id, len(self.by_number), capacity)
            self.streams[stream_id] = found
            self.by_number.append(found)
        return found


class Slot:
    """The session the current request (and every task it starts) works for, and, when it is a
    resumption, the plan of the guard's decision (effects.Plan: what the store's replay does)."""

    __slots__ = ("binding", "plan")

    def __init__(self, binding: Optional[Binding], plan=None) -> None:
        self.binding = binding
        self.plan = plan


CURRENT: ContextVar[Optional[Slot]] = ContextVar("mcp_resumption_guard", default=None)


class SessionBook:
    """What this process knows of its sessions: live ones by Mcp-Session-Id, all by id key."""

    def __init__(self, capacity: int, incarnation: int, scheme: str = "tagged",
                 keying: str = "session") -> None:
        self.capacity = capacity
        self.incarnation = incarnation
        self.scheme, self.keying = scheme, keying
        self.sessions: Dict[str, Binding] = {}
        self.keys: Dict[str, Binding] = {}
        self.counter = 0                    # the process's id counter (ids "global")
        self.index: Dict[str, Tuple[Binding, StreamRecord]] = {}   # id -> newest holder
        self._issued = 0

    def mint(self, binding: Binding, stream: StreamRecord) -> Tuple[str, Optional[int]]:
        """The next event id of `binding`'s `stream` under the scheme, and its order."""
        if self.scheme == "tagged":
            seq = stream.next_seq
            return str(TaggedId(binding.key, binding.generation, stream.number, seq)), seq
        if self.scheme == "per_session":
            binding.counter += 1
            return str(binding.counter), binding.counter
        if self.scheme == "global":
            self.counter += 1
            return str(self.counter), self.counter
        return uuid.uuid4().hex, None

    def lookup(self, binding: Optional[Binding], wire: Optional[str]
               ) -> Optional[Tuple[Binding, StreamRecord, Kept]]:
        """Where this deployment's lookup finds cursor `wire` among retained events: in S's own
        streams (keying "session"), or in any live session's (keying "event_id")."""
        if wire is None:
            return None
        if self.keying == "event_id":
            found = self.index.get(wire)
            if found is None or self.keys.get(found[0].key) is not found[0]:
                return None
            kept = found[1].holds(wire)
            return (found[0], found[1], kept) if kept is not None else None
        for stream in (binding.by_number if binding is not None else ()):
            kept = stream.holds(wire)
            if kept is not None:
                return binding, stream, kept
        return None

    def new_binding(self) -> Binding:
        self._issued += 1
        binding = Binding(self._issued, secrets.token_hex(8), self.incarnation)
        self.keys[binding.key] = binding
        return binding

    def bind(self, binding: Binding, session_id: str) -> None:
        binding.session_id = session_id
        self.sessions[session_id] = binding

    def drop_unbound(self, binding: Binding) -> None:
        if binding.session_id is None:
            self.keys.pop(binding.key, None)

    def forget(self, session_id: str) -> None:
        gone = self.sessions.pop(session_id, None)
        if gone is not None:
            self.keys.pop(gone.key, None)

    def locate(self, tagged: TaggedId) -> Optional[StreamRecord]:
        binding = self.keys.get(tagged.key)
        if binding is None or not 0 <= tagged.stream < len(binding.by_number):
            return None
        return binding.by_number[tagged.stream]


class GuardedEventStore(EventStore):
    """The store the guard hands to the SDK. Standalone it keeps the messages itself; with
    `inner` (the deployment's own EventStore) it stores every event there too, under a stream id
    scoped by the session key (so sessions never share an inner stream), and replays through
    `inner` from an anchor (a retained event or the floor), translating ids both ways. `inner`
    must retain at least `capacity + 1` events per stream (the retained ones and the floor,
    which is still a valid cursor): the guard admits what its own bookkeeping says is there, and
    a replay the inner store cannot anchor fails loudly rather than answer an empty stream.

    A replay does what the guard's decision for the request says (effects.plan): the cursor's
    own stream after E, the whole retained stream, a gap event then the stream after its floor,
    nothing (attached to S's stream, or to no stream at all), or no stream (the SDK closes)."""

    def __init__(self, book: SessionBook, inner: Optional[EventStore] = None,
                 shared=None) -> None:
        self.book = book
        self.inner = inner
        self.shared = shared       # shared_buffers.SharedBuffers: the fleet's, in Redis

    async def store_event(self, stream_id, message) -> str:
        slot = CURRENT.get()
        if slot is None or slot.binding is None:
            raise RuntimeError("GuardedEventStore used outside StrictResumptionGuard: wrap the "
                               "ASGI app that serves the session manager with guard.wrap(app)")
        binding = slot.binding
        new_stream = str(stream_id) not in binding.streams
        stream = binding.stream(str(stream_id), self.book.capacity)
        seq = stream.next_seq
        if self.shared is not None and self.book.scheme == "global":   # one fleet counter
            counter = await self.shared.next_counter()
            event_id, order = str(counter), counter
        else:
            event_id, order = self.book.mint(binding, stream)
        inner_id = None if self.inner is None else \
            await self.inner.store_event(f"{binding.key}/{stream.stream_id}", message)
        kept = Kept(seq, event_id, message, inner_id, order, binding.generation)
        gone = stream.keep(kept)
        if self.shared is not None and binding.session_id is not None:
            await self.shared.append(binding.session_id, stream, kept, new_stream)
        if self.book.keying == "event_id":
            self.book.index[event_id] = (binding, stream)
            if gone is not None and self.book.index.get(gone.event_id, (None, None))[1] is stream:
                del self.book.index[gone.event_id]
        if message is not None:
            binding.latest = stream
        return event_id

    async def replay_events_after(self, last_event_id, send_callback: EventCallback
                                  ) -> Optional[str]:
        slot = CURRENT.get()
        todo = slot.plan if slot is not None else None
        if todo is None:           # not decided by a guard: the cursor's own stream, after E
            tagged = TaggedId.parse(str(last_event_id))
            stream = self.book.locate(tagged) if tagged is not None else None
            if stream is None or tagged is None:
                return None
            await self._replay(stream, tagged.seq, str(last_event_id), send_callback)
            return stream.stream_id
        if todo.no_stream:
            return None
        if todo.stream is None:
            return todo.attach_to
        if todo.gap and todo.stream.floor is not None:
            await send_callback(EventMessage(gap_notice(todo.stream.floor.event_id), None))
        if todo.after is not None:
            await self._replay(todo.stream, todo.after, str(last_event_id), send_callback)
        return todo.stream.stream_id

    async def _replay(self, stream: StreamRecord, after: int, cursor: str,
                      send_callback: EventCallback) -> None:
        """Send `stream`'s retained messages with sequence numbers above `after`, in order."""
        todo = [e for e in stream.events if e.seq > after and e.message is not None]
        if self.inner is None or not todo or any(e.inner_id is None for e in todo):
            # standalone, or events another process stored (read from the shared buffers)
            for event in todo:
                await send_callback(EventMessage(event.message, event.event_id))
            return
        anchor = stream.anchor(after) or (stream.floor if after < todo[0].seq else None)
        if anchor is None:           # nothing dropped yet and E before the first retained event
            first = todo[0]
            await send_callback(EventMessage(first.message, first.event_id))
            anchor = first
        names = {str(e.inner_id): e.event_id for e in stream.events}

        async def translated(event: EventMessage) -> None:
            name = names.get(str(event.event_id))
            if name is None:
                raise RuntimeError(f"the inner store replayed {event.event_id!r}, an event this "
                                   "stream never stored: it mixes streams")
            await send_callback(EventMessage(event.message, name))
        found = await self.inner.replay_events_after(anchor.inner_id, translated)
        if found is None:
            raise RuntimeError(f"the inner store no longer holds {anchor.inner_id!r}, which the "
                               f"guard admitted as {cursor!r}: it must retain at least "
                               f"capacity + 1 = {self.book.capacity + 1} events per stream")


def gap_notice(resume_from: str):
    """The leading event of a gap signal (200 + gap): a notification naming the earliest cursor
    the stream can be resumed after (the floor). It is sent without an id, so the client's
    cursor stays where it was until a replayed event moves it (as the model's client)."""
    from mcp_types import JSONRPCNotification
    return JSONRPCNotification(jsonrpc="2.0", method="notifications/resumption_gap",
                               params={"resume_from": resume_from})
