"""The transition function: `apply(state, action, config, gate) -> Step(state, events)`.

Pure: the same arguments always give the same result, and nothing outside the returned value
changes. Server-side actions live here; client-side ones in `model.client_side`, requests in
`model.resume`. Applying an action that is not enabled raises `ActionNotEnabled`.
"""
from __future__ import annotations

from typing import Any, Final, List, NamedTuple, Optional, Tuple, Union

from .actions import (
    Arrive,
    ClientRestart,
    Compact,
    Deliver,
    Depart,
    Disconnect,
    Drain,
    Emit,
    Evict,
    Expire,
    ForeignCursor,
    HalfOpen,
    IdleTimeout,
    Init,
    Persist,
    Reconnect,
    Start,
    Stop,
)
from .buffers import new_entry, record_event
from .client_side import (
    arrive,
    client_restart,
    close_stream,
    deliver,
    depart,
    foreign_cursor,
    half_open,
    persist,
)
from .config import SystemConfig
from .enabled import is_enabled
from .entries import Buffer, Item
from .errors import ActionNotEnabled
from .history import BufferCompacted, Emitted, InstanceChanged, SessionEvicted, StreamStalled
from .pairs import Pairs, shared_prefix, shared_suffix, tdel, tget, tset
from .policies import Gate, GateFunction, decide, resolve_gate
from .protocol import Decision, ResumeRequest
from .resume import initialize, reconnect, resumption_question, stream_is_dead
from .servers import Instance
from .state import Client, State, holding, replace_at, set_orphan, slot_of
from .stateless import emit_request, expire, forget_request, issue
from .switches import SWITCHES
from .tasks import create_task, emit_task, expire_task, held_on, poll
from .view import ServerView


class Step(NamedTuple):
    state: State
    events: Tuple[Any, ...]


#: builds a Step without the NamedTuple's interpreted constructor (the compiled model calls it
#: once per transition); Final, so that compiled, both are read from C statics, not looked up
#: by name in the module's dict
_new_step: Final[Any] = tuple.__new__
_STEP: Final[Any] = Step


def emit(state: State, config: SystemConfig, token: int) -> Tuple[State, list]:
    """The holder of `token` emits its next message: it is buffered where buffers live and sent
    live on every stream open to that instance for that session. Emitting a call's result
    executes the call; the owner's ground-truth record says whether it had been executed
    before (by any instance, session or generation)."""
    h, live = holding(state, config, token)
    assert live is not None    # enabled only where some instance holds the session
    msg = live.next_msg
    entry = new_entry(state, config, h, token, live, msg)
    clients, live_to = list(state.clients), []
    for c, client in enumerate(clients):
        stream = client.stream     # (the cheapest tests first: most clients read another session)
        if stream is not None and stream.token == token and stream.instance == h and \
                client.phase == "open":
            item = Item(entry.wire, entry.truth, "live")
            clients[c] = client.replace(inflight=client.inflight + (item,))
            live_to.append(client.ident)
    result, first, again = config.is_result(msg), None, ""
    owner_slot = slot_of(state, live.client) if result else None
    if owner_slot is not None:
        owner = clients[owner_slot]
        first = tget(owner.executed, msg)
        if first is None:
            clients[owner_slot] = owner.replace(
                executed=tset(owner.executed, msg, (token, live.generation)))
        else:
            again = "recreated_generation" if first[0] == token else "reissued_after_refusal"
    state, _, dropped = record_event(state, config, h, token, live, msg, entry,
                                     tuple(clients))
    if live.orphan == "call" and config.is_result(msg):   # the call's stream, held by a
        state = set_orphan(state, h, token, "")        # dead connection, ends with its result
    return state, [Emitted(h, token, live.generation, msg, live.client, entry.wire,
                           tuple(live_to), dropped, result, config.has_side_effect(msg), first,
                           again)]


def _changed_keys(old: Pairs, new: Pairs, into: List[int]) -> None:
    """Append to `into` every key that one of two sorted pair tuples binds and the other does
    not bind to the very same value. An update (`model.pairs`) shares every pair it keeps, so the
    pairs both tuples begin and end with, object for object, are skipped before the two middles
    are merged by key."""
    if old is new:
        return
    lo = shared_prefix(old, new)
    tail = shared_suffix(old, new, lo)
    n_old, n_new = len(old) - tail, len(new) - tail
    i = j = lo
    while i < n_old and j < n_new:
        a, b = old[i], new[j]
        key_a: int = a[0]
        key_b: int = b[0]
        if key_a == key_b:
            if a[1] is not b[1]:
                into.append(key_a)
            i, j = i + 1, j + 1
        elif key_a < key_b:
            into.append(key_a)
            i += 1
        else:
            into.append(key_b)
            j += 1
    while i < n_old:
        into.append(old[i][0])
        i += 1
    while j < n_new:
        into.append(new[j][0])
        j += 1


def _touched_sessions(before: State, after: State) -> List[int]:
    """Tokens whose registry record, live session in some instance, or holding instance's
    status changed between two states (what a stream's deadness depends on besides its
    client), a token possibly more than once. A down instance holds no session, so a status
    change touches the sessions the instance held before or holds after it. (A list: it holds
    a token or two, which a loop over unboxed ints finds faster than a set would.)"""
    touched: List[int] = []
    _changed_keys(before.registry, after.registry, touched)
    for old, new in zip(before.instances, after.instances):
        if old is new:
            continue
        if old.status != new.status:
            touched.extend([token for token, _ in old.sessions])
            touched.extend([token for token, _ in new.sessions])
        else:
            _changed_keys(old.sessions, new.sessions, touched)
    return touched


def _among(tokens: List[int], token: int) -> bool:
    """`token in tokens`, comparing unboxed ints when compiled."""
    for t in tokens:
        if t == token:
            return True
    return False


#: `incremental_stall_marking`: after a transition, re-judge only the streams it could have
#: made dead (mark_stalls' `before`), else every open stream (the definition; tests compare
#: the two): `model.switches`
_SWITCHES: Final = SWITCHES


def mark_stalls(state: State, config: SystemConfig,
                before: Optional[State] = None) -> Tuple[State, list]:
    """Flag every open stream that has just become dead (nothing in flight, nothing can ever
    arrive on it, the client is still owed messages) and record a StreamStalled for it.
    Deadness is stable while a stream stays open (only its own session's holder can feed it,
    and only a reconnect, which needs the stream closed, can change the holder), so a stream is
    flagged once.

    Whether client c's stream is dead depends only on the client, the registry and the
    instances' status and live sessions of its token. `before` is the state this one was
    reached from, in which every dead stream was flagged already (apply keeps that invariant):
    only the clients that changed and the streams of sessions whose registry record, live
    sessions or holding instance changed are looked at."""
    old: Tuple[Client, ...] = ()    # the clients to compare with (none: look at every one)
    if before is not None and len(state.instances) == len(before.instances):
        old = before.clients
    n_old = len(old)
    after = state
    touched: Optional[List[int]] = None
    events: list = []
    for c, client in enumerate(after.clients):
        stream = client.stream
        if stream is None or stream.stalled:
            continue      # it cannot be newly dead
        if c < n_old and client is old[c]:
            if touched is None:       # the sessions this transition touched, once
                assert before is not None
                touched = _touched_sessions(before, after)
            if not _among(touched, stream.token):
                continue  # the client, its session and the session's holder are as they were
        if client.phase != "open" or client.inflight:
            continue      # it cannot be newly dead
        if not stream_is_dead(state, config, c):
            continue
        client = client.replace(stream=stream.replace(stalled=True))
        state = state.replace(clients=replace_at(state.clients, c, client))
        events.append(StreamStalled(client.ident, stream.instance, stream.token,
                                    stream.admission))
    return state, events


def _close_streams(state: State, config: SystemConfig, instance=None, token=None,
                   reason: str = "") -> Tuple[State, list]:
    """Close every open stream on `instance` (or of session `token`)."""
    events: list = []
    for c, client in enumerate(state.clients):
        stream = client.stream
        if client.phase == "open" and stream is not None and (stream.instance == instance
                                                              or stream.token == token):
            state, closed = close_stream(state, c, reason, config)
            events.extend(closed)
    return state, events


def _expire_task(state: State, config: SystemConfig, i: Optional[int],
                 token: int) -> Tuple[State, list]:
    """A task record expires; the polls held on its "working" answer end with it."""
    state, events = expire_task(state, config, i, token)
    for c in held_on(state, i, token):
        state, closed = close_stream(state, c, "task_expired", config)
        events.extend(closed)
    return state, events


def drain(state: State, config: SystemConfig, i: int) -> Tuple[State, list]:
    inst = state.instances[i]
    state = state.replace(instances=replace_at(state.instances, i,
                                                inst.replace(status="draining")))
    return state, [InstanceChanged(i, "drain", inst.incarnation, ())]


def stop(state: State, config: SystemConfig, i: int) -> Tuple[State, list]:
    """The process ends: its sessions, buffers and counter are gone, its streams closed."""
    inst = state.instances[i]
    what = "crash" if inst.status == "up" else "stop"
    lost = tuple(token for token, _ in inst.sessions)
    state = state.replace(instances=replace_at(state.instances, i,
                                                Instance("down", inst.incarnation)))
    state, closed = _close_streams(state, config, instance=i, reason="instance_stop")
    if config.stateless and not config.tasks:   # its requests are gone, listened to or not
        for token in lost:
            state = forget_request(state, token)
    return state, [InstanceChanged(i, what, inst.incarnation, lost)] + closed


def start(state: State, config: SystemConfig, i: int) -> Tuple[State, list]:
    inst = state.instances[i]
    state = state.replace(instances=replace_at(state.instances, i,
                                                Instance("up", inst.incarnation + 1)))
    return state, [InstanceChanged(i, "start", inst.incarnation + 1, ())]


def evict(state: State, config: SystemConfig, token: int) -> Tuple[State, list]:
    """The session ends server-side: gone from every registry, process and buffer."""
    instances = tuple(inst.replace(sessions=tdel(inst.sessions, token),
                                    buffers=tdel(inst.buffers, token))
                      for inst in state.instances)
    state = state.replace(registry=tdel(state.registry, token),
                           affinity=tdel(state.affinity, token),
                           buffers=tdel(state.buffers, token), instances=instances)
    state, closed = _close_streams(state, config, token=token, reason="session_evicted")
    shared = config.buffer_keying == "request_id"   # its events stay in the shared streams
    if not shared and not any(item.truth.token == token for c in state.clients
                              for item in c.inflight):
        state = state.replace(owners=tdel(state.owners, token))  # nothing refers to it now
    return state, [SessionEvicted(token)] + closed


def compact(state: State, config: SystemConfig, i, token: int) -> Tuple[State, list]:
    """Drop the oldest retained event of `token`'s buffer (at instance `i`, or shared)."""
    pairs = state.buffers if i is None else state.instances[i].buffers
    buffer: Optional[Buffer] = tget(pairs, token)
    assert buffer is not None      # compacted only where the buffer holds an event
    floor = buffer.entries[0]
    buffer = Buffer(buffer.entries[1:], floor)
    if i is None:
        state = state.replace(buffers=tset(pairs, token, buffer))
    else:
        inst = state.instances[i].replace(buffers=tset(pairs, token, buffer))
        state = state.replace(instances=replace_at(state.instances, i, inst))
    return state, [BufferCompacted(i, token, floor.wire)]


def transition(state: State, config: SystemConfig, gate: Gate, action,
               decided: Optional[Decision] = None,
               question: Optional[Tuple[ResumeRequest, ServerView]] = None
               ) -> Tuple[State, list]:
    """The action's own changes and events, before stall marking (`apply` adds it);
    `decided` and `question`: see `apply` and `successor`."""
    # isinstance, not `match`: a class pattern costs the compiled model a generic
    # isinstance (an attribute lookup) per case tried; this is a type check each
    if isinstance(action, Deliver):
        return deliver(state, config, action.client)
    if isinstance(action, Emit):
        if config.tasks:
            return emit_task(state, config, action.token)
        if config.transport != "sessions":
            return emit_request(state, config, action.token)
        return emit(state, config, action.token)
    if isinstance(action, Reconnect):
        if config.tasks:
            return poll(state, config, action.client, action.instance)
        return reconnect(state, config, gate, action.client, action.instance, decided,
                         question)
    if isinstance(action, Compact):
        return compact(state, config, action.instance, action.token)
    if isinstance(action, Start):
        return start(state, config, action.instance)
    if isinstance(action, Stop):
        return stop(state, config, action.instance)
    if isinstance(action, Drain):
        return drain(state, config, action.instance)
    if isinstance(action, ForeignCursor):
        return foreign_cursor(state, config, action.client, action.donor)
    if isinstance(action, ClientRestart):
        return client_restart(state, config, action.client)
    if isinstance(action, Init):
        if config.tasks:
            return create_task(state, config, action.client, action.instance)
        if config.transport != "sessions":
            return issue(state, config, action.client, action.instance)
        return initialize(state, config, action.client, action.instance)
    if isinstance(action, Persist):
        return persist(state, config, action.client)
    if isinstance(action, Disconnect):
        return close_stream(state, action.client, "network", config)
    if isinstance(action, HalfOpen):
        return half_open(state, config, action.client)
    if isinstance(action, IdleTimeout):
        return close_stream(state, action.client, "idle_timeout", config)
    if isinstance(action, Evict):
        return evict(state, config, action.token)
    if isinstance(action, Expire):
        if config.tasks:
            return _expire_task(state, config, action.instance, action.msg)
        return expire(state, config, action.instance, action.client, action.msg)
    if isinstance(action, Arrive):
        return arrive(state, config)
    if isinstance(action, Depart):
        return depart(state, config, action.client)
    raise TypeError(f"not an action: {action!r}")


def question_of(state: State, action: Reconnect, config: SystemConfig
                ) -> Tuple[ResumeRequest, ServerView]:
    """What any gate is asked at an enabled Reconnect in `state`: `decide(gate, *question)` is
    `decision_of(state, action, config, gate)` (a search that shares outcomes across gates
    builds the question once for all of them)."""
    return resumption_question(state, config, action.client, action.instance)


def decision_of(state: State, action: Reconnect, config: SystemConfig, gate: Gate) -> Decision:
    """The gate's decision on an enabled Reconnect in `state` (raises GateError as `apply`
    does); `apply(..., decided=decision_of(...))` is `apply(...)`."""
    request, view = question_of(state, action, config)
    return decide(gate, request, view)


def apply(state: State, action, config: SystemConfig,
          gate: Union[str, GateFunction, Gate] = "strict", check: bool = True,
          decided: Optional[Decision] = None) -> Step:
    """Apply one enabled action. `check=False` skips the enabledness check (engines that took
    the action from `enabled_actions` already know it holds). For a Reconnect, `decided` may
    carry `decision_of(state, action, config, gate)`, asked before (a search that shares
    outcomes across gates asks each gate once); the step is then the one asking gives."""
    if check and not is_enabled(state, config, action):
        raise ActionNotEnabled(f"{action!r} is not enabled in this state")
    if type(gate) is not Gate:
        gate = resolve_gate(gate)
    return _new_step(_STEP, successor(state, action, config, gate, decided))


def successor(state: State, action, config: SystemConfig, gate: Gate,
              decided: Optional[Decision] = None,
              question: Optional[Tuple[ResumeRequest, ServerView]] = None
              ) -> Tuple[State, Tuple[Any, ...]]:
    """`apply(state, action, config, gate, check=False, decided=decided)` as a plain pair: the
    step `apply` returns is this pair (the engines, which apply only enabled actions and resolve
    their gate once, call this: the explorer, the DES's world and the bench ceilings). For a
    Reconnect, `question` may carry `question_of(state, action, config)`, built before (the
    one `decided` answered): the pair is the same, without building it again."""
    new_state, events = transition(state, config, gate, action, decided, question)
    new_state, stalls = mark_stalls(new_state, config,
                                    state if _SWITCHES.incremental_stall_marking else None)
    return new_state, tuple(events + stalls) if stalls else tuple(events)
