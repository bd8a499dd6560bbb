"""A bounded in-memory event store with the semantics of the MCP Python SDK's example store.

The SDK defines only the `EventStore` interface and ships no store; its examples keep a bounded
deque per stream id and an index from event id to entry, with random (uuid) ids. This store
keeps those semantics so the harness tests what deployments built on that pattern do:

- the store is not told the session: streams are keyed by stream id alone, and the SDK's stream
  ids are JSON-RPC request ids, so two sessions' requests with the same id share one deque;
- a cursor is looked up by event id alone, across sessions (no provenance);
- an evicted or unknown cursor makes `replay_events_after` return None (the SDK then answers
  200 with an empty stream and closes it).
"""
from __future__ import annotations

from collections import deque
from typing import Deque, Dict, NamedTuple, Optional
from uuid import uuid4

from mcp.server.streamable_http import EventCallback, EventMessage, EventStore


class StoredEvent(NamedTuple):
    event_id: str
    stream_id: str
    message: object        # a JSONRPCMessage, or None for a priming event (id, no data)


class BoundedEventStore(EventStore):
    """Keeps the newest `capacity` events of each stream; an event leaves the id index when it
    leaves its stream's deque, so every id in the index can be replayed after."""

    def __init__(self, capacity: int = 64) -> None:
        if not isinstance(capacity, int) or isinstance(capacity, bool) or capacity < 1:
            raise ValueError(f"capacity must be a positive integer, got {capacity!r}")
        self.capacity = capacity
        self.streams: Dict[str, Deque[StoredEvent]] = {}
        self.index: Dict[str, StoredEvent] = {}

    async def store_event(self, stream_id, message) -> str:
        entry = StoredEvent(uuid4().hex, str(stream_id), message)
        events = self.streams.setdefault(entry.stream_id, deque())
        if len(events) == self.capacity:
            self.index.pop(events.popleft().event_id, None)
        events.append(entry)
        self.index[entry.event_id] = entry
        return entry.event_id

    async def replay_events_after(self, last_event_id, send_callback: EventCallback
                                  ) -> Optional[str]:
        found = self.index.get(str(last_event_id))
        if found is None:
            return None
        after = False
        for entry in list(self.streams.get(found.stream_id, ())):
            if after and entry.message is not None:
                await send_callback(EventMessage(entry.message, entry.event_id))
            after = after or entry.event_id == found.event_id
        return found.stream_id
