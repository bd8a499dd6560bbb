"""The guard's side of event storage: tagged ids, what the process knows of each session's
streams, and the EventStore the SDK is given (standalone, or wrapping the deployment's own store).

The SDK's `EventStore` is not told the session. The guard's middleware puts the session the
current request works for into a context variable (`CURRENT`); the SDK's session tasks are
started inside the request that created the session and inherit it. Ids minted before the SDK's
session id is known (the initialize request's priming event) carry the session's random key,
which the middleware binds to the session id when the initialize response carries it.

Invariants: an id is issued once per process incarnation; a stream's retained events are the
newest `capacity` (their sequence numbers contiguous, right after `floor`); sessions never share
a stream, whatever their request ids.
"""
from __future__ import annotations

import secrets
from collections import deque
from contextvars import ContextVar
from typing import Deque, Dict, List, NamedTuple, Optional

from mcp.server.streamable_http import EventCallback, EventMessage, EventStore


class TaggedId(NamedTuple):
    """`<session key>-<incarnation>-<stream number>-<sequence>`, all but the key decimal."""
    key: str
    incarnation: int
    stream: int
    seq: int

    def __str__(self) -> str:
        return f"{self.key}-{self.incarnation}-{self.stream}-{self.seq}"

    @staticmethod
    def parse(text: str) -> Optional["TaggedId"]:
        """The id's parts, or None when `text` is not an id of this format."""
        parts = text.split("-")
        if len(parts) != 4 or not all(parts) or not all(p.isdigit() for p in parts[1:]):
            return None
        return TaggedId(parts[0], int(parts[1]), int(parts[2]), int(parts[3]))


class Kept(NamedTuple):
    seq: int
    event_id: str          # the tagged id on the wire
    message: object        # the message (None: a priming event)
    inner_id: object = None  # the inner store's id for it (wrapping)


class StreamRecord:
    """One SDK stream of one session: its retained events and its replay floor."""

    def __init__(self, stream_id: str, number: int, capacity: int) -> None:
        self.stream_id = stream_id
        self.number = number
        self.capacity = capacity
        self.events: Deque[Kept] = deque()
        self.next_seq = 1
        self.floor: Optional[Kept] = None       # the last event dropped for capacity

    def keep(self, event: Kept) -> None:
        if len(self.events) == self.capacity:
            self.floor = self.events.popleft()
        self.events.append(event)
        self.next_seq = event.seq + 1

    def anchor(self, seq: int) -> Optional[Kept]:
        """The retained event or the floor with sequence number `seq`."""
        for event in self.events:
            if event.seq == seq:
                return event
        return self.floor if self.floor is not None and self.floor.seq == seq else None


class Binding:
    """One session as the guard knows it; `number` is its session number in the model's view."""

    def __init__(self, number: int, key: str) -> None:
        self.number = number
        self.key = key
        self.session_id: Optional[str] = None
        self.streams: Dict[str, StreamRecord] = {}
        self.by_number: List[StreamRecord] = []
        self.latest: Optional[StreamRecord] = None   # the stream that last stored a message

    def own_stream(self, tagged: Optional[TaggedId]) -> Optional[StreamRecord]:
        """S's replay buffer as the model sees it (one per session): the stream the cursor
        names when it is one of S's, else the stream that last carried a message."""
        if tagged is not None and tagged.key == self.key \
                and 0 <= tagged.stream < len(self.by_number):
            return self.by_number[tagged.stream]
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

    def __init__(self, capacity: int, incarnation: int) -> None:
        self.capacity = capacity
        self.incarnation = incarnation
        self.sessions: Dict[str, Binding] = {}
        self.keys: Dict[str, Binding] = {}
        self._issued = 0

    def new_binding(self) -> Binding:
        self._issued += 1
        binding = Binding(self._issued, secrets.token_hex(8))
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

    def __init__(self, book: SessionBook, inner: Optional[EventStore] = None) -> None:
        self.book = book
        self.inner = inner

    async def store_event(self, stream_id, message) -> str:
        slot = CURRENT.get()
        if slot is None or slot.binding is None:
            raise RuntimeError("GuardedEventStore used outside StrictResumptionGuard: wrap the "
                               "ASGI app that serves the session manager with guard.wrap(app)")
        binding = slot.binding
        stream = binding.stream(str(stream_id), self.book.capacity)
        seq = stream.next_seq
        event_id = str(TaggedId(binding.key, self.book.incarnation, stream.number, seq))
        inner_id = None if self.inner is None else \
            await self.inner.store_event(f"{binding.key}/{stream.stream_id}", message)
        stream.keep(Kept(seq, event_id, message, inner_id))
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
        if self.inner is None or not todo:
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
