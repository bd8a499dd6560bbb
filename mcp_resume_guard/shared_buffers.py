"""Replay buffers shared by a fleet, in Redis (the model's `buffer = "shared"`).

Every event a process stores for a session is also appended to that session's stream in Redis,
which keeps the newest `capacity` events and the floor (the last one dropped), and a process
that does not hold a session reads the session's streams from there before it decides (and
keeps them if it adopts the session). A global id counter lives beside them, so a "global" id
is unique across the fleet. Only the process serving a session writes its streams.

Key layout under `prefix` (default "mcp:buf:"): `<session>:streams` (stream ids, oldest first),
`<session>:s:<stream id>` (JSON events, oldest first, at most capacity + 1: the floor and the
retained ones), `<session>:latest` (the stream that last carried a message), `counter`.
"""
from __future__ import annotations

import json
from typing import List, Optional

from .ids import TaggedId
from .store import Binding, Kept, StreamRecord


def _message_adapter():
    from mcp.server.streamable_http import JSONRPCMessage
    from pydantic import TypeAdapter
    return TypeAdapter(JSONRPCMessage)


def _minted_number(stream: StreamRecord) -> Optional[int]:
    """The stream number its oldest tagged id was minted with (None: no tagged id)."""
    for kept in ([stream.floor] if stream.floor is not None else []) + list(stream.events):
        tagged = TaggedId.parse(kept.event_id)
        if tagged is not None:
            return tagged.stream
    return None


def renumber(binding: Binding) -> None:
    """Put loaded streams at the numbers their tagged ids were minted with, so a cursor's
    stream number names the same stream here as in the process that issued it. Streams stored
    before the session had an id (the initialize request's, with its priming event) never
    reach the shared buffers, so the loaded list can be short of them: their numbers stay
    empty placeholders (no stream id the SDK can ask for). Streams without tagged ids keep
    their order after the numbered ones."""
    numbered = {}
    rest = []
    for stream in binding.by_number:
        number = _minted_number(stream)
        if number is None or number in numbered:
            rest.append(stream)
        else:
            numbered[number] = stream
    if not numbered:
        return
    size = max(numbered) + 1
    by_number = [numbered.get(n) or StreamRecord(f"\x00unshared-{n}", n, stream_capacity(binding))
                 for n in range(size)] + rest
    for number, stream in enumerate(by_number):
        stream.number = number
    binding.by_number = by_number


def stream_capacity(binding: Binding) -> int:
    """The capacity the binding's streams were loaded with."""
    return binding.by_number[0].capacity if binding.by_number else 1


class SharedBuffers:
    """The fleet's replay buffers in Redis; `url_or_client` a redis:// URL or a redis.asyncio
    client (imported only when a URL is given)."""

    def __init__(self, url_or_client, capacity: int, prefix: str = "mcp:buf:") -> None:
        if isinstance(url_or_client, str):
            from redis.asyncio import Redis
            url_or_client = Redis.from_url(url_or_client)
        self.client, self.capacity, self.prefix = url_or_client, capacity, prefix
        self._messages = _message_adapter()

    def _key(self, session_id: str, *parts: str) -> str:
        return self.prefix + ":".join((session_id,) + parts)

    async def next_counter(self) -> int:
        """The fleet's next global id."""
        return int(await self.client.incr(self.prefix + "counter"))

    async def append(self, session_id: str, stream: StreamRecord, kept: Kept,
                     new_stream: bool) -> None:
        """`kept` appended to `session_id`'s `stream`, keeping capacity + 1 events."""
        record = {"seq": kept.seq, "id": kept.event_id, "order": kept.order,
                  "generation": kept.generation,
                  "message": None if kept.message is None else kept.message.model_dump(
                      mode="json", by_alias=True, exclude_none=True)}
        key = self._key(session_id, "s", stream.stream_id)
        async with self.client.pipeline(transaction=True) as pipe:
            if new_stream:
                pipe.rpush(self._key(session_id, "streams"), stream.stream_id)
            pipe.rpush(key, json.dumps(record))
            pipe.ltrim(key, -(self.capacity + 1), -1)
            if kept.message is not None:
                pipe.set(self._key(session_id, "latest"), stream.stream_id)
            await pipe.execute()

    async def load(self, session_id: str, binding: Binding) -> Binding:
        """`binding` given `session_id`'s streams as the fleet's buffers hold them."""
        names: List[bytes] = await self.client.lrange(self._key(session_id, "streams"), 0, -1)
        latest = await self.client.get(self._key(session_id, "latest"))
        for raw_name in names:
            name = raw_name.decode()
            stream = binding.stream(name, self.capacity)
            kept = [self._kept(json.loads(x)) for x in
                    await self.client.lrange(self._key(session_id, "s", name), 0, -1)]
            if len(kept) > self.capacity:
                stream.floor, kept = kept[0], kept[1:]
            stream.events.extend(kept)
            stream.next_seq = (kept[-1].seq if kept else stream.floor.seq if stream.floor
                               else 0) + 1
        if latest is not None:
            binding.latest = binding.streams.get(latest.decode())
        renumber(binding)
        return binding

    def _kept(self, record: dict) -> Kept:
        message = record["message"]
        return Kept(record["seq"], record["id"],
                    None if message is None else self._messages.validate_python(message),
                    None, record["order"], record["generation"])

    async def close(self) -> None:
        await self.client.aclose()
