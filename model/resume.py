"""Initialize and resume: the two requests a client sends, routed by the LB and decided here.

`reconnect` is the heart of the model: build the deciding instance's view, ask the gate, then
carry out the decision: recreate the session's state when the instance loads a session it does
not hold (a new generation), queue the replay the effect names, or apply the client's reaction to
a rejection (re-initialize, accept a gap, or fail).
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from .buffers import PRIMING, record_event
from .codes import VALUES
from .config import SystemConfig
from .entries import Buffer, Cursor, Item
from .event_ids import order_key
from .history import (
    ClientFailed,
    Decided,
    GapAccepted,
    Initialized,
    Recreated,
    StreamClosed,
    StreamStalled,
)
from .lb import advance
from .observe import build_view, lookup
from .pairs import tget, tset
from .policies import Gate, decide
from .protocol import (
    CODE_REPLAY_GAP,
    EFFECT_CLAMPED,
    EFFECT_DETACHED,
    EFFECT_EMPTY,
    EFFECT_EMPTY_CLOSE,
    EFFECT_FOREIGN,
    EFFECT_FROM_HEAD,
    EFFECT_GAP,
    EFFECT_REPLAY,
    Decision,
    Effect,
    ResumeRequest,
)
from .servers import LiveSession, SessionRecord
from .state import (
    DETACHED_STREAM,
    Client,
    State,
    Stream,
    buffer_key,
    buffer_of,
    owner_of,
    replace_at,
    set_orphan,
    visible_buffers,
)
from .tasks import poll_is_dead
from .view import ServerView
from .vocabulary import Via
from .work import emit_possible, work_start


def _ensure_buffer(state: State, config: SystemConfig, instance: int, token: int) -> State:
    """Create an empty replay buffer for `token` where buffers live, unless one exists."""
    if buffer_of(state, config, instance, token) is not None:
        return state
    if config.buffer == "shared":
        return state.replace(buffers=tset(state.buffers, buffer_key(config, token), Buffer()))
    inst = state.instances[instance]
    inst = inst.replace(buffers=tset(inst.buffers, buffer_key(config, token), Buffer()))
    return state.replace(instances=replace_at(state.instances, instance, inst))


def _install(state: State, instance: int, token: int, live: LiveSession) -> State:
    inst = state.instances[instance]
    inst = inst.replace(sessions=tset(inst.sessions, token, live))
    return state.replace(instances=replace_at(state.instances, instance, inst))


def initialize(state: State, config: SystemConfig, c: int, instance: int) -> Tuple[State, list]:
    """A new session on `instance` running the client's unfinished calls; its stream opens."""
    client = state.clients[c]
    token, start = state.next_token, work_start(config, client)
    state = advance(state, config, token, instance, True).replace(
        next_token=token + 1, owners=tset(state.owners, token, client.ident))
    if config.store == "shared":
        record = SessionRecord(client.ident, start, 1)
        state = state.replace(registry=tset(state.registry, token, record))
    live = LiveSession(client.ident, start, 1, start, 0)
    state = _ensure_buffer(_install(state, instance, token, live), config, instance, token)
    cursor, priming = None, None
    if config.priming:  # SEP-1699: an id with no data, so the client holds a cursor at once
        state, entry, _ = record_event(state, config, instance, token, live, PRIMING)
        cursor, priming = Cursor(entry.wire, entry.truth), entry.wire
    client = client.replace(
        phase="open", token=token, cursor=cursor, persisted=(token, cursor),
        stream=Stream(instance, token, "init", None, 1, False), inflight=(),
        seen=frozenset({priming}) if priming is not None and config.client_dedupe else frozenset(),
        inits=client.inits + 1)
    state = state.replace(clients=replace_at(state.clients, c, client))
    return state, [Initialized(client.ident, instance, token, start, client.inits > 1, priming)]


def owes(config: SystemConfig, client: Client) -> bool:
    """The client still lacks some message of its work that it was not told it lost."""
    if len(client.applied) + len(client.missed) < config.messages_per_session:
        return True     # fewer applied or lost than its work holds: some message is neither
    done = {k for k, _ in client.applied}
    return any(m not in done and m not in client.missed
               for m in range(config.messages_per_session))


def waiting_cause(state: State, config: SystemConfig) -> Optional[str]:
    """Why some client waits (holds a session, idle or open, and lacks messages it was not told
    it lost): "idle", or how its open stream was admitted; None if nobody waits."""
    for client in state.clients:
        if (client.phase == "idle" or client.phase == "open") and owes(config, client):
            if client.phase == "idle":
                return "idle"
            stream = client.stream
            assert stream is not None    # an open client has its stream
            return stream.admission
    return None


def can_emit(state: State, config: SystemConfig, instance: int, token: int) -> bool:
    """`instance` runs session `token` at its current generation and has work left to emit."""
    return emit_possible(state, config, token, on=instance)


def stream_is_dead(state: State, config: SystemConfig, c: int) -> bool:
    """Client `c`'s open stream has nothing in flight, no data can ever arrive on it, and the
    client is still owed messages: it waits for nothing (a stall, until an idle timeout)."""
    client = state.clients[c]
    stream = client.stream
    if client.phase != "open" or stream is None or client.inflight or not owes(config, client):
        return False
    if config.tasks:
        return poll_is_dead(state, config, stream)
    return not can_emit(state, config, stream.instance, stream.token)


def _recreate(state: State, config: SystemConfig, instance: int, token: int) -> Tuple[State, int]:
    """Load a session the instance does not hold: a new generation whose work restarts."""
    record = tget(state.registry, token)
    generation = record.generation + 1
    state = state.replace(registry=tset(state.registry, token,
                                         record.replace(generation=generation)))
    state = _install(state, instance, token, LiveSession(record.client, record.work_start,
                                                         generation, record.work_start, 0))
    return _ensure_buffer(state, config, instance, token), generation


def _replay_items(state: State, config: SystemConfig, instance: int, token: int,
                  effect: Effect, wire) -> Tuple[Item, ...]:
    """Data events only: priming entries carry no data and are never delivered."""
    return tuple(item for item in _replayed(state, config, instance, token, effect, wire)
                 if item.truth.msg != PRIMING)


def _replayed(state: State, config: SystemConfig, instance: int, token: int,
              effect: Effect, wire) -> Tuple[Item, ...]:
    """The events an admitted stream starts with. The effect says which kind of replay the gate
    chose; what is replayed follows the deployment's lookup (an event-id keyed store follows E
    into whichever stream holds it)."""
    if effect in (EFFECT_EMPTY, EFFECT_EMPTY_CLOSE, EFFECT_CLAMPED, EFFECT_DETACHED):
        return ()
    buffer = buffer_of(state, config, instance, token)
    if effect in (EFFECT_FROM_HEAD, EFFECT_GAP):
        via: Via = "head" if effect is EFFECT_FROM_HEAD else "replay"
        return tuple(Item(e.wire, e.truth, via) for e in (buffer.entries if buffer else ()))
    found = lookup(state, config, instance, token, wire)
    if found is not None:
        # follow E into the stream that holds it: S's own, another session's (an id-keyed store)
        # or one that sessions share ("request_id"), which replays the others' events too
        key = buffer_key(config, found.truth.token)
        other: Via = "shared" if key == buffer_key(config, token) else "foreign"
        source = tget(visible_buffers(state, config, instance), key)
        assert source is not None
        return tuple(Item(e.wire, e.truth, "replay" if e.truth.token == token else other)
                     for e in source.entries if e.truth.serial > found.truth.serial)
    if buffer is None:
        return ()
    if buffer.floor is not None and buffer.floor.wire == wire:
        return tuple(Item(e.wire, e.truth, "replay") for e in buffer.entries)
    after = order_key(config.event_ids, wire)  # E is no entry: replay what compares after it
    if after is None:
        return ()
    return tuple(Item(e.wire, e.truth, "replay") for e in buffer.entries
                 if _after(order_key(config.event_ids, e.wire), after))


def _after(key: Optional[int], than: int) -> bool:
    """An entry's order key is after `than` (an id of another scheme never is)."""
    return key is not None and key > than


def tell_gap(state: State, client: Client, resume_from,
             floor) -> Tuple[Client, GapAccepted]:
    """The client learns that everything up to the floor entry is gone: its own messages up to
    the floor's that it never applied are lost with notice (ground truth decides which)."""
    told: Tuple[int, ...] = ()
    if floor is not None and owner_of(state, floor.truth.token) == client.ident:
        done = {k for k, _ in client.applied}
        told = tuple(m for m in range(floor.truth.msg + 1)
                     if m not in done and m not in client.missed)
    accepted = GapAccepted(client.ident, resume_from, told)
    return client.replace(missed=client.missed | set(told)), accepted


def _live_anywhere(state: State, config: SystemConfig, token: int) -> bool:
    """Ground truth: some registry or process still holds the session."""
    if config.store == "shared" and tget(state.registry, token) is not None:
        return True
    return any(tget(inst.sessions, token) is not None for inst in state.instances)


#: Stream.admission of a stream opened by a GET without Last-Event-ID
NO_CURSOR_ADMISSION = "no_cursor"


def _admit(state: State, config: SystemConfig, c: int, instance: int,
           decision: Decision, view, replay_only: bool) -> Tuple[Client, Tuple[Item, ...], list]:
    """Open the admitted stream with its replay (whether it is dead is judged after every
    transition, in `model.transitions.apply`). A 200 that closes at once with nothing while the
    client is owed messages is a stall here and now: the client gets no data and asks again.
    `replay_only`: an earlier connection still holds S's stream, so this one carries the
    replay and ends (on_attached_stream "replay_then_close")."""
    client = state.clients[c]
    token, cursor = client.token, client.cursor
    assert token is not None
    items = _replay_items(state, config, instance, token, decision.effect,
                          cursor.wire if cursor is not None else None)
    after: list = []
    if decision.effect is EFFECT_GAP:  # the leading gap event names the floor
        buffer = buffer_of(state, config, instance, token)
        floor = buffer.floor if buffer is not None else None
        client, event = tell_gap(state, client, floor.wire if floor else None, floor)
        after.append(event)
    if decision.effect is EFFECT_EMPTY_CLOSE or (replay_only and not items):
        after.append(StreamClosed(client.ident, instance, "server_close", 0))
        # An empty close because another connection holds S's stream is no stall: the work
        # goes on into the store, and a later resumption replays what it emitted.
        if decision.effect is EFFECT_EMPTY_CLOSE and not items and owes(config, client):
            after.append(StreamStalled(client.ident, instance, token, "empty_close"))
        return client.replace(phase="idle", stream=None, inflight=()), (), after
    truth = cursor.truth if cursor is not None else None
    admission = NO_CURSOR_ADMISSION if cursor is None else VALUES[decision.effect]
    attached = DETACHED_STREAM if decision.effect is EFFECT_DETACHED or replay_only else token
    stream = Stream(instance, attached, "resume", truth.generation if truth else None,
                    view.generation, _foreign(state, config, instance, cursor, token), 0,
                    admission, False, replay_only)
    return client.replace(phase="open", stream=stream, inflight=items), items, after


def _foreign(state: State, config: SystemConfig, instance: int, cursor, token: int) -> bool:
    """Ground truth for attributing what follows: the cursor was issued on another session and
    its id names no event of S's own stream here. An id byte-identical to one that S's stream
    holds (or just dropped) is, to any server, a position in S's stream: what follows is judged
    as the consequence of resuming from that position, not of a foreign cursor."""
    if cursor is None or cursor.truth is None or cursor.truth.token == token:
        return False
    buffer = buffer_of(state, config, instance, token)
    if buffer is None:
        return True
    entries = buffer.entries + ((buffer.floor,) if buffer.floor is not None else ())
    return not any(e.wire == cursor.wire and e.truth.token == token for e in entries)


def _prime_resumed(state: State, config: SystemConfig, instance: int, token: int,
                   client: Client) -> Tuple[State, Client]:
    """The priming event a resumed stream carries after its replay (priming_on_resume), whatever
    the admission replayed: buffered like any event and queued behind the replay, so the client
    takes it as its cursor once it has applied the replay."""
    live: Optional[LiveSession] = tget(state.instances[instance].sessions, token)
    if live is None or client.phase != "open":
        return state, client
    state, entry, _ = record_event(state, config, instance, token, live, PRIMING)
    return state, client.replace(inflight=client.inflight + (Item(entry.wire, entry.truth,
                                                                   "replay"),))


def _resume_request(state: State, c: int) -> ResumeRequest:
    client = state.clients[c]
    token = client.token
    assert token is not None   # enabled only for a client holding a session
    return ResumeRequest(token, client.cursor.wire if client.cursor is not None else None)


def resumption_question(state: State, config: SystemConfig, c: int,
                        instance: int) -> Tuple[ResumeRequest, ServerView]:
    """What a gate is asked about client `c`'s resumption routed to `instance`: the request and
    what the instance knows when it decides it (the same for every gate)."""
    request = _resume_request(state, c)
    return request, build_view(state, config, instance, request)


def reconnect(state: State, config: SystemConfig, gate: Gate, c: int,
              instance: int, decided: Optional[Decision] = None,
              question: Optional[Tuple[ResumeRequest, ServerView]] = None
              ) -> Tuple[State, list]:
    """GET with the client's token and cursor, routed to `instance` and decided by `gate`
    (or, when given, `decided`: the decision `gate` gave to `resumption_question` for this
    state; the result is then exactly what asking the gate here gives). `question`, when
    given, is `resumption_question(state, config, c, instance)`, built before."""
    client = state.clients[c]
    token = client.token
    assert token is not None   # enabled only for a client holding a session
    request, view = resumption_question(state, config, c, instance) if question is None \
        else question
    decision = decide(gate, request, view) if decided is None else decided
    live_elsewhere = _live_anywhere(state, config, token)
    state = advance(state, config, token, instance, False)
    events: List = []
    recreated: Optional[int] = None
    if view.recreates and decision.admitted:  # a refusal never creates server state
        state, generation = _recreate(state, config, instance, token)
        recreated = generation
        events.append(Recreated(instance, token, generation,
                                tget(state.registry, token).work_start))
    items: Tuple[Item, ...] = ()
    if decision.admitted:
        live: Optional[LiveSession] = tget(state.instances[instance].sessions, token)
        attached = live is not None and live.orphan != ""
        replay_only = attached and config.on_attached_stream == "replay_then_close" and \
            decision.effect in (EFFECT_REPLAY, EFFECT_FOREIGN)
        if attached and config.on_attached_stream == "take_over":
            state = set_orphan(state, instance, token, "")   # the old connection is closed
        client, items, after = _admit(state, config, c, instance, decision, view, replay_only)
        # The SDK primes every stream it attaches to a resumption, whatever was replayed on it
        # (found on the fleet: from_head and gap streams are primed too); an empty close and a
        # replay-only stream attach nothing.
        if config.priming_on_resume and request.last_event_id is not None and not replay_only \
                and decision.effect is not EFFECT_EMPTY_CLOSE:
            state, client = _prime_resumed(state, config, instance, token, client)
    else:
        client, after = _react(state, config, c, instance, decision)
    presented = state.clients[c].cursor
    foreign = presented is not None and presented.truth is not None and \
        presented.truth.token != token
    events.append(Decided(
        client=client.ident, instance=instance, token=token, cursor=request.last_event_id,
        gate=gate.name, status=decision.status, code=VALUES[decision.code],
        effect=VALUES[decision.effect], resume_from=decision.resume_from,
        registry_has_session=view.registry_has_session, held_locally=view.held_locally,
        live_elsewhere=live_elsewhere, recreated=recreated, replayed=len(items),
        reason=decision.reason, position=view.cursor.position, cursor_foreign=foreign,
        recreates=view.recreates))
    events.extend(after)
    return state.replace(clients=replace_at(state.clients, c, client)), events


def _react(state: State, config: SystemConfig, c: int, instance: int,
           decision: Decision) -> Tuple[Client, list]:
    """The client's reaction to a rejection (404/409 configurable): accept a
    gap and resume after the cursor it names, re-initialize, or fail (surface the error). A gap
    that names no cursor leaves nothing to resume after: it is handled like any other 409. Only
    a client that handles 409 (on_409 "reinit") reads the gap signal: the MCP SDK clients raise
    on any non-2xx answer to a resumption, a 409 replay_gap included (seen in conformance)."""
    client = state.clients[c]
    token = client.token
    assert token is not None
    resume = decision.resume_from
    if decision.code is CODE_REPLAY_GAP and resume is not None and config.on_409 == "reinit":
        buffer = buffer_of(state, config, instance, token)
        floor = buffer.floor if buffer is not None and buffer.floor is not None \
            and buffer.floor.wire == resume else None
        client, event = tell_gap(state, client, resume, floor)
        cursor = Cursor(resume, floor.truth if floor is not None else None)
        return client.replace(phase="idle", cursor=cursor), [event]
    reaction = config.on_404 if decision.status == 404 else \
        config.on_409 if decision.status == 409 else "fail"
    if reaction == "reinit":
        return client.replace(phase="needs_init", token=None, cursor=None, stream=None,
                               inflight=(), seen=frozenset()), []
    return client.replace(phase="failed", stream=None, inflight=()), \
        [ClientFailed(client.ident, decision.status, VALUES[decision.code])]
