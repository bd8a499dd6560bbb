"""Client-side transitions: apply an event, persist the cursor, lose the stream, restart.

`deliver` keeps the ground-truth bookkeeping the properties need: which of its own messages the
client applied first on which session and generation, and which earlier ones it skipped for good
without having been told (a hole: silent loss).
"""
from __future__ import annotations

from typing import Tuple

from .buffers import PRIMING
from .config import SystemConfig
from .entries import Cursor
from .history import (
    Applied,
    ClientArrived,
    ClientDeparted,
    ClientRestarted,
    CursorPersisted,
    CursorReplaced,
    Dropped,
    Primed,
    StreamClosed,
)
from .pairs import tget, tset
from .state import Client, State, owner_of, replace_at, set_orphan


def _set(state: State, c: int, client: Client) -> State:
    return state.replace(clients=replace_at(state.clients, c, client))


def deliver(state: State, config: SystemConfig, c: int) -> Tuple[State, list]:
    """The first in-flight event reaches the client: a priming event moves its cursor; a data
    event is dropped if deduped, else applied."""
    client = state.clients[c]
    who = client.ident
    item, rest = client.inflight[0], client.inflight[1:]
    truth = item.truth
    open_stream = client.stream
    assert open_stream is not None and client.token is not None
    if truth.msg == PRIMING:
        client = client.replace(inflight=rest, cursor=Cursor(item.wire, truth))
        return _drained(_set(state, c, client), c, [Primed(who, item.wire)])
    stream = open_stream.replace(frames=open_stream.frames + 1)
    client = client.replace(inflight=rest, stream=stream, cursor=Cursor(item.wire, truth),
                             seen=client.seen | {item.wire} if config.client_dedupe
                             else client.seen)
    owner = owner_of(state, truth.token)
    own = owner == who
    first = tget(client.applied, truth.msg) if own else None
    if config.client_dedupe and item.wire in state.clients[c].seen:
        return _set(state, c, client), [Dropped(who, item.wire, owner, truth.msg,
                                                own and first is None)]
    holes: Tuple[int, ...] = ()
    if own:
        done = {k for k, _ in client.applied}
        holes = tuple(m for m in range(truth.msg) if m not in done and m not in client.missed)
        applied = client.applied if first is not None else \
            tset(client.applied, truth.msg, (truth.token, truth.generation))
        client = client.replace(applied=applied, missed=client.missed | set(holes))
    event = Applied(
        client=who, wire=item.wire, owner=owner, msg=truth.msg,
        side_effect=config.has_side_effect(truth.msg), token=truth.token,
        generation=truth.generation, via=item.via,
        first_token=first[0] if first else None, first_generation=first[1] if first else None,
        admission=stream.admission, client_gen=stream.client_gen,
        serving_gen=stream.serving_gen, cursor_foreign=stream.cursor_foreign, holes=holes)
    return _drained(_set(state, c, client), c, [event])


def _drained(state: State, c: int, events: list) -> Tuple[State, list]:
    """A stream that ends once its replay is delivered closes with its last event."""
    client = state.clients[c]
    if client.stream is not None and client.stream.ends_when_drained and not client.inflight:
        state, closed = close_stream(state, c, "server_close")
        events = events + closed
    return state, events


def persist(state: State, config: SystemConfig, c: int) -> Tuple[State, list]:
    """Durably store the session token and live cursor (the client persists with a lag)."""
    client = state.clients[c]
    client = client.replace(persisted=(client.token, client.cursor))
    wire = client.cursor.wire if client.cursor is not None else None
    return _set(state, c, client), [CursorPersisted(client.ident, client.token, wire)]


def close_stream(state: State, c: int, reason: str) -> Tuple[State, list]:
    """The client's open stream ends; events in flight are lost, the work is not."""
    client = state.clients[c]
    assert client.stream is not None
    event = StreamClosed(client.ident, client.stream.instance, reason, client.stream.frames)
    client = client.replace(phase="idle", stream=None, inflight=())
    return _set(state, c, client), [event]


def half_open(state: State, config: SystemConfig, c: int) -> Tuple[State, list]:
    """The client loses its stream without the server noticing: the instance that serves it
    goes on holding the session's stream on the dead connection (LiveSession.orphan). The
    call's own stream ends with the call's result (so a call with nothing left to emit leaves
    no orphan); a resumed stream ends only with its connection (the MCP Python SDK keeps a
    resumed stream registered after the result: seen in differential testing)."""
    stream = state.clients[c].stream
    assert stream is not None
    state, events = close_stream(state, c, "half_open")
    live = tget(state.instances[stream.instance].sessions, stream.token)
    if live is None:
        return state, events
    if stream.kind == "resume":
        state = set_orphan(state, stream.instance, stream.token, "resumed")
    elif live.next_msg < config.messages_per_session:
        state = set_orphan(state, stream.instance, stream.token, "call")
    return state, events


def client_restart(state: State, config: SystemConfig, c: int) -> Tuple[State, list]:
    """The client process restarts: it reloads the persisted token and cursor and forgets what
    it held in memory (live cursor, open stream). The dedupe log of applied event ids is durable
    (written with each event's effect), so it survives while the session stays the same."""
    events: list = []
    if state.clients[c].phase == "open":
        state, events = close_stream(state, c, "client_restart")
    client = state.clients[c]
    token, cursor = client.persisted if client.persisted is not None else (None, None)
    stale = token == client.token and cursor != client.cursor
    client = client.replace(phase="idle" if token is not None else "needs_init", token=token,
                             cursor=cursor, stream=None, inflight=(),
                             seen=client.seen if token == client.token else frozenset())
    events.append(ClientRestarted(client.ident, token, cursor.wire if cursor is not None else None,
                                  stale))
    return _set(state, c, client), events


def arrive(state: State, config: SystemConfig) -> Tuple[State, list]:
    """A new client takes the first free slot (or a new one) with a fresh identity."""
    ident = state.next_ident
    client = Client("new", ident=ident)
    slots = [c for c, existing in enumerate(state.clients) if existing.phase == "gone"]
    clients = replace_at(state.clients, slots[0], client) if slots else state.clients + (client,)
    state = state.replace(clients=clients, next_ident=ident + 1)
    return state, [ClientArrived(ident, slots[0] if slots else len(clients) - 1)]


def depart(state: State, config: SystemConfig, c: int) -> Tuple[State, list]:
    """The client leaves: its stream closes and its slot is freed for the next arrival."""
    events: list = []
    if state.clients[c].phase == "open":
        state, events = close_stream(state, c, "client_left")
    client = state.clients[c]
    done = {k for k, _ in client.applied}
    owed = tuple(m for m in range(config.messages_per_session) if m not in done)
    events.append(ClientDeparted(client.ident, client.phase, owed))
    return _set(state, c, Client("gone", ident=client.ident)), events


def foreign_cursor(state: State, config: SystemConfig, c: int, donor: int) -> Tuple[State, list]:
    """A client bug: the cursor of another session ends up in this client's Last-Event-ID."""
    cursor = state.clients[donor].cursor
    assert cursor is not None
    client = state.clients[c].replace(cursor=cursor)
    replaced = CursorReplaced(client.ident, state.clients[donor].ident, cursor.wire)
    return _set(state, c, client), [replaced]
