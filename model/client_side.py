"""Client-side transitions: apply an event, persist the cursor, lose the stream, restart.

`deliver` keeps the ground-truth bookkeeping the properties need: which of its own messages the
client applied first on which session and generation, and which earlier ones it skipped for good
without having been told (a hole: silent loss).
"""
from __future__ import annotations

from typing import FrozenSet, Optional, Tuple

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
from .pairs import Pairs, keys_below, tget, tset
from .state import Client, State, owner_of, replace_at, set_orphan
from .stateless import REQUEST_RUNS_ON, cancel_request, forget_request, result_of


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
        return _drained(_set(state, c, client), c, [Primed(who, item.wire)], config)
    stream = open_stream.replace(frames=open_stream.frames + 1)
    cursor = Cursor(item.wire, truth)
    seen = client.seen | {item.wire} if config.client_dedupe else client.seen
    owner = owner_of(state, truth.token)
    own = owner == who
    applied, missed = client.applied, client.missed
    first = tget(applied, truth.msg) if own else None
    if config.client_dedupe and item.wire in client.seen:
        dropped = [Dropped(who, item.wire, owner, truth.msg, own and first is None)]
        client = client.replace(inflight=rest, stream=stream, cursor=cursor, seen=seen)
        if config.transport == "sessions":   # (a task's poll ends once drained)
            return _set(state, c, client), dropped
        return _drained(_set(state, c, client), c, dropped, config)
    holes: Tuple[int, ...] = ()
    if own and item.via == "recorded":   # a recorded result: the call is over, and the
        done = {k for k, _ in applied}          # progress it skips is no loss
        call_first = result_of(config, truth.msg) - (truth.msg % config.messages_per_call)
        missed = missed | {m for m in range(call_first, truth.msg) if m not in done}
    if own:
        holes = _holes(applied, missed, truth.msg)
        if first is None:
            applied = tset(applied, truth.msg, (truth.token, truth.generation))
        if holes:
            missed = missed | set(holes)
    client = client.replace(inflight=rest, stream=stream, cursor=cursor, seen=seen,
                             applied=applied, missed=missed)    # one new client, not three
    event = Applied(
        client=who, wire=item.wire, owner=owner, msg=truth.msg,
        side_effect=config.has_side_effect(truth.msg), token=truth.token,
        generation=truth.generation, via=item.via,
        first_token=first[0] if first else None, first_generation=first[1] if first else None,
        admission=stream.admission, client_gen=stream.client_gen,
        serving_gen=stream.serving_gen, cursor_foreign=stream.cursor_foreign, holes=holes)
    return _drained(_set(state, c, client), c, [event], config)


def _holes(applied: Pairs, missed: FrozenSet[int], msg: int) -> Tuple[int, ...]:
    """A client's own messages below `msg` neither `applied` nor known `missed`, in order.
    The keys of `applied` are distinct message indexes from 0, so when `msg` of them lie below
    `msg` there is none (the common case, found by one search instead of a set)."""
    if keys_below(applied, msg) == msg:
        return ()
    done = {k for k, _ in applied}
    return tuple(m for m in range(msg) if m not in done and m not in missed)


def _drained(state: State, c: int, events: list, config: SystemConfig) -> Tuple[State, list]:
    """A stream that ends once its replay is delivered closes with its last event; so does a
    stateless request's response stream once the request is over and all of it delivered."""
    client = state.clients[c]
    stream = client.stream
    if stream is None or client.inflight:
        return state, events
    if stream.ends_when_drained:
        state, closed = close_stream(state, c, "server_close", config)
        events = events + closed
    elif config.stateless and not config.tasks and \
            tget(state.instances[stream.instance].sessions, stream.token) is None:
        state, closed = close_stream(state, c, "complete", config)
        events = events + closed
    return state, events


def persist(state: State, config: SystemConfig, c: int) -> Tuple[State, list]:
    """Durably store the session token and live cursor (the client persists with a lag)."""
    client = state.clients[c]
    client = client.replace(persisted=(client.token, client.cursor))
    wire = client.cursor.wire if client.cursor is not None else None
    return _set(state, c, client), [CursorPersisted(client.ident, client.token, wire)]


def close_stream(state: State, c: int, reason: str,
                 config: Optional[SystemConfig] = None) -> Tuple[State, list]:
    """The client's open stream ends; events in flight are lost, the work is not. On a
    stateless transport (`config` says) the request goes with it: the client is owed a
    re-issue of its unfinished calls, and the request is cancelled unless the server did not
    see the break or the request is over (`model.stateless.REQUEST_RUNS_ON`)."""
    client = state.clients[c]
    stream = client.stream
    assert stream is not None
    event = StreamClosed(client.ident, stream.instance, reason, stream.frames)
    if config is None or config.transport == "sessions" or config.tasks:   # a poll's end
        return _set(state, c, client.replace(phase="idle", stream=None, inflight=())), [event]
    client = client.replace(phase="needs_init", token=None, cursor=None, stream=None,
                            inflight=())
    state = _set(state, c, client)
    if reason not in REQUEST_RUNS_ON:
        state = cancel_request(state, stream.instance, stream.token)
    return forget_request(state, stream.token), [event]


def half_open(state: State, config: SystemConfig, c: int) -> Tuple[State, list]:
    """The client loses its stream without the server noticing: the instance that serves it
    goes on holding the session's stream on the dead connection (LiveSession.orphan). The
    call's own stream ends with the call's result (so a call with nothing left to emit leaves
    no orphan); a resumed stream ends only with its connection (the MCP Python SDK keeps a
    resumed stream registered after the result: seen in differential testing)."""
    stream = state.clients[c].stream
    assert stream is not None
    state, events = close_stream(state, c, "half_open", config)
    live = tget(state.instances[stream.instance].sessions, stream.token)
    if live is None or config.transport != "sessions":   # a stateless request runs on
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
        state, events = close_stream(state, c, "client_restart", config)
    client = state.clients[c]
    token, cursor = client.persisted if client.persisted is not None and \
        (config.transport == "sessions" or config.tasks) else (None, None)
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
        state, events = close_stream(state, c, "client_left", config)
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
