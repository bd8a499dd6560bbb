"""Client-side transitions: apply an event, persist the cursor, lose the stream, restart.

`deliver` keeps the ground-truth bookkeeping the properties need: which of its own messages the
client applied first on which session and generation, and which earlier ones it skipped for good
without having been told (a hole: silent loss).
"""
from __future__ import annotations

from typing import Tuple

from .config import SystemConfig
from .history import (Applied, ClientRestarted, CursorPersisted, CursorReplaced, Dropped,
                      StreamClosed)
from .state import Client, Cursor, State, replace_at, tget, tset


def _set(state: State, c: int, client: Client) -> State:
    return state._replace(clients=replace_at(state.clients, c, client))


def deliver(state: State, config: SystemConfig, c: int) -> Tuple[State, list]:
    """The first in-flight event reaches the client: dropped if deduped, else applied."""
    client = state.clients[c]
    item, rest = client.inflight[0], client.inflight[1:]
    truth = item.truth
    stream = client.stream._replace(frames=client.stream.frames + 1)
    client = client._replace(inflight=rest, stream=stream, cursor=Cursor(item.wire, truth),
                             seen=client.seen | {item.wire})
    own = truth.client == c
    first = tget(client.applied, truth.msg) if own else None
    if config.client_dedupe and item.wire in state.clients[c].seen:
        return _set(state, c, client), [Dropped(c, item.wire, truth.client, truth.msg,
                                                own and first is None)]
    holes: Tuple[int, ...] = ()
    if own:
        done = {k for k, _ in client.applied}
        holes = tuple(m for m in range(truth.msg) if m not in done and m not in client.missed)
        applied = client.applied if first is not None else \
            tset(client.applied, truth.msg, (truth.token, truth.generation))
        client = client._replace(applied=applied, missed=client.missed | set(holes))
    event = Applied(c, item.wire, truth.client, truth.msg, config.is_result(truth.msg),
                    truth.token, truth.generation, item.via,
                    first[0] if first else None, first[1] if first else None,
                    stream.kind, stream.client_gen, stream.serving_gen, stream.cursor_foreign,
                    holes)
    return _set(state, c, client), [event]


def persist(state: State, config: SystemConfig, c: int) -> Tuple[State, list]:
    """Durably store the session token and live cursor (the client persists with a lag)."""
    client = state.clients[c]
    client = client._replace(persisted=(client.token, client.cursor))
    wire = client.cursor.wire if client.cursor is not None else None
    return _set(state, c, client), [CursorPersisted(c, client.token, wire)]


def close_stream(state: State, c: int, reason: str) -> Tuple[State, list]:
    """The client's open stream ends; events in flight are lost, the work is not."""
    client = state.clients[c]
    event = StreamClosed(c, client.stream.instance, reason, client.stream.frames)
    client = client._replace(phase="idle", stream=None, inflight=())
    return _set(state, c, client), [event]


def client_restart(state: State, config: SystemConfig, c: int) -> Tuple[State, list]:
    """The client process restarts: it reloads the persisted token and cursor and forgets what
    it held in memory (live cursor, dedupe set, open stream)."""
    events: list = []
    if state.clients[c].phase == "open":
        state, events = close_stream(state, c, "client_restart")
    client = state.clients[c]
    token, cursor = client.persisted if client.persisted is not None else (None, None)
    client = client._replace(phase="idle" if token is not None else "needs_init", token=token,
                             cursor=cursor, stream=None, inflight=(), seen=frozenset())
    events.append(ClientRestarted(c, token, cursor.wire if cursor is not None else None))
    return _set(state, c, client), events


def foreign_cursor(state: State, config: SystemConfig, c: int, donor: int) -> Tuple[State, list]:
    """A client bug: the cursor of another session ends up in this client's Last-Event-ID."""
    cursor = state.clients[donor].cursor
    client = state.clients[c]._replace(cursor=cursor)
    return _set(state, c, client), [CursorReplaced(c, donor, cursor.wire)]
