"""The system's configuration: one frozen dataclass, validated on construction.

Every field is checked when the object is built; an unknown key, a wrong type or an out-of-range
value raises `ConfigError` naming the key. `from_mapping` builds one from a TOML-like dict.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Mapping

from .errors import ConfigError

PLACEMENTS = ("local", "shared")
KEYINGS = ("session", "event_id", "request_id")
#: Keyings whose replay streams never mix sessions. Under "request_id" a store replays other
#: sessions' events whatever the gate admits: no resumption policy can repair that, the store
#: must key streams by session (as StrictResumptionGuard's store does).
ISOLATING_KEYINGS = ("session", "event_id")
EVENT_ID_SCHEMES = ("per_session", "global", "tagged", "uuid")
LB_KINDS = ("round_robin", "random", "least_connections", "sticky")
CLIENT_REACTIONS = ("reinit", "fail")
#: what a server does with a resumption of a stream it still writes to an earlier connection
ATTACHED_STREAM_REACTIONS = ("take_over", "replay_then_close")
#: how clients and servers talk: "sessions" (initialize, Mcp-Session-Id, a resumable stream:
#: protocol 2025-11-25 and earlier) or the 2026-07-28 single-exchange POST, with no session and
#: no resumption ("stateless": a broken response stream loses the request, the client
#: re-issues it), optionally with an idempotency key per logical call that the servers record,
#: or with the Tasks extension ("tasks": a call returns a task handle, the client polls it)
TRANSPORTS = ("sessions", "stateless", "stateless+idempotency", "tasks")

_CHOICES = {
    "store": PLACEMENTS,
    "buffer": PLACEMENTS,
    "buffer_keying": KEYINGS,
    "event_ids": EVENT_ID_SCHEMES,
    "lb": LB_KINDS,
    "on_404": CLIENT_REACTIONS,
    "on_409": CLIENT_REACTIONS,
    "on_attached_stream": ATTACHED_STREAM_REACTIONS,
    "transport": TRANSPORTS,
    "execution_record": PLACEMENTS,
}
_MINIMUM = {"instances": 1, "clients": 1, "messages_per_session": 1, "messages_per_call": 1,
            "buffer_capacity": 1, "side_effect_every": 1}


@dataclass(frozen=True)
class SystemConfig:
    """What the modelled deployment looks like.

    store            where the session registry lives: "local" (per process) or "shared"
    buffer           where replay buffers live: "local" (per process) or "shared"
    buffer_keying    how a cursor is looked up: "session" (in S's own buffer), "event_id" (one
                     store keyed by event id across sessions, like the MCP SDK EventStore) or
                     "request_id" (as "event_id", and streams are keyed by JSON-RPC request id
                     as the SDK's example store does: every SDK client numbers its requests
                     alike, so sessions share streams and a replay carries the others' events)
    buffer_capacity  events retained per session buffer; older ones are dropped (floor rises)
    event_ids        "per_session" counter, server-"global" counter, "tagged" (session,
                     generation, seq) or opaque "uuid"
    lb               "round_robin", "random", "least_connections" or "sticky" (on session id)
    on_404, on_409   client reaction: "reinit" (the spec; a 409 replay_gap naming a cursor is
                     accepted and the client resumes after it) or "fail" (the MCP SDK clients
                     raise on any 409, a gap included)
    client_dedupe    client drops events whose id it already applied on the session (a durable
                     log, written with each event's effect, so it survives a client restart)
    priming          the server sends a priming event (an id, no data) when initialize opens a
                     stream (SEP-1699, spec 2025-11-25), so the client holds a cursor before the
                     first message; without it a stream lost before its first event cannot be
                     resumed
    priming_on_resume
                     the server also primes a resumed stream: after the replay it records and
                     sends a fresh priming event (the MCP Python SDK does, found by
                     differential testing), which the client takes as its cursor once it has
                     applied the replay, and which takes a slot of the bounded buffer
    on_attached_stream
                     a resumption of a stream the server still writes to an earlier, half-open
                     connection: "take_over" (the new connection replaces it; the TypeScript
                     SDK) or "replay_then_close" (the replay is sent, then the new stream ends:
                     live events keep going to the old connection; the MCP Python SDK)
    messages_per_session, messages_per_call
                     each client's work: messages in calls; a call's last message is its
                     result, the others are progress notifications
    side_effect_every
                     every n-th call's result is non-idempotent (1: all of them): applying it
                     twice repeats a side effect
    transport        "sessions" (the default: everything above), "stateless" (protocol
                     2026-07-28: each POST carries the client's unfinished calls and streams
                     their messages on its own response; no session, registry, replay buffer or
                     resumption; a break the server sees cancels the request, one it does not
                     see lets it run on; the client re-issues every unfinished call with a new
                     request id) or "stateless+idempotency" (the same, and each logical call
                     carries an idempotency key: the server that executes it records its result,
                     and a server that sees the key recorded returns that result instead of
                     executing again), or "tasks" (the same POST, answered at once with a
                     task handle: the work runs in the background in the process that created
                     the task, which keeps a task record of what it produced; the client polls
                     the task, each poll a request the LB routes, and re-issues its unfinished
                     calls when a poll finds no record of the task)
    execution_record where "stateless+idempotency" keeps its execution records, and "tasks" its
                     task records: "local" (in the process that executed the call or created
                     the task, lost when it stops) or "shared" (Redis-like); records expire
                     with a TTL (an `Expire` action)
    """

    instances: int = 2
    clients: int = 1
    messages_per_session: int = 6
    messages_per_call: int = 3
    side_effect_every: int = 1
    store: str = "shared"
    buffer: str = "local"
    buffer_keying: str = "session"
    buffer_capacity: int = 64
    event_ids: str = "per_session"
    lb: str = "round_robin"
    on_404: str = "reinit"
    on_409: str = "reinit"
    client_dedupe: bool = False
    priming: bool = True
    priming_on_resume: bool = False
    on_attached_stream: str = "take_over"
    transport: str = "sessions"
    execution_record: str = "shared"

    def __post_init__(self) -> None:
        for f in fields(self):
            _check_field(f.name, f.type, getattr(self, f.name))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> "SystemConfig":
        """Build from a dict; unknown keys are errors that name the key."""
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise ConfigError(str(key), f"unknown key (known: {', '.join(sorted(known))})")
        types = {f.name: f.type for f in fields(cls)}
        for key, value in data.items():   # before construction: the compiled class would
            _check_field(key, types[key], value)   # reject a wrong type without naming it
        return cls(**dict(data))

    def replace(self, **changes: Any) -> "SystemConfig":
        """A copy with some fields changed (validated like any construction)."""
        return self.from_mapping({**self._fields_dict(), **changes})

    def _fields_dict(self) -> dict:
        """{field: value} of every field (each a str, int or bool: nothing to copy, where
        `dataclasses.asdict` would deep-copy each value, at a hundred times the cost)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def as_dict(self) -> dict:
        """Every field, but the transport's own left out where they say nothing: `transport`
        when it is "sessions" (the default), `execution_record` when it is the default and no
        idempotency keys read it. So a sessions deployment reads as it did before there were
        other transports, and `from_mapping` gives the same configuration back."""
        data = self._fields_dict()
        if self.transport == "sessions":
            del data["transport"]
        if not self.keeps_records and self.execution_record == "shared":
            del data["execution_record"]
        return data

    @property
    def stateless(self) -> bool:
        """No sessions: a 2026-07-28 transport (a POST per request, re-issue on break)."""
        return self.transport != "sessions"

    @property
    def idempotency(self) -> bool:
        """Calls carry idempotency keys and servers keep execution records."""
        return self.transport == "stateless+idempotency"

    @property
    def tasks(self) -> bool:
        """Calls return task handles that the client polls (the Tasks extension)."""
        return self.transport == "tasks"

    @property
    def keeps_records(self) -> bool:
        """The servers keep records that `execution_record` places: execution records
        (idempotency keys) or task records."""
        return self.transport == "stateless+idempotency" or self.transport == "tasks"

    def is_result(self, index: int) -> bool:
        """Message `index` is a call's result (non-idempotent side effect when applied); the last
        message of the work ends a call even if it is shorter."""
        return (index % self.messages_per_call == self.messages_per_call - 1
                or index == self.messages_per_session - 1)

    def has_side_effect(self, index: int) -> bool:
        """Message `index` is a non-idempotent result."""
        call = index // self.messages_per_call
        return self.is_result(index) and call % self.side_effect_every == 0


def _check_field(name: str, kind: Any, value: Any) -> None:
    """Raise ConfigError naming `name` unless `value` fits the field's type and range."""
    if kind in ("int", int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(name, f"expected an integer, got {value!r}")
        low = _MINIMUM.get(name)
        if low is not None and value < low:
            raise ConfigError(name, f"must be >= {low}, got {value}")
    elif kind in ("bool", bool):
        if not isinstance(value, bool):
            raise ConfigError(name, f"expected true or false, got {value!r}")
    elif name in _CHOICES:
        if value not in _CHOICES[name]:
            raise ConfigError(name, f"must be one of {', '.join(_CHOICES[name])}; got {value!r}")
