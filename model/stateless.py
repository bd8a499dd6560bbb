"""The stateless transports (protocol 2026-07-28): a request per POST, re-issue on a break, and
idempotency keys with execution records.

There is no session: `Init` is the client's POST of its unfinished calls, routed by the LB; the
instance runs it as a request (a `LiveSession` under a fresh request id, the state's `token`)
and streams its messages on the POST's own response. Nothing is buffered and nothing can be
resumed. When the response stream breaks, the client re-issues every unfinished call with a
new request id (`Init` again); a break the server sees (the connection closes) cancels the
request, one it does not see (half-open) lets it run on with nobody listening.

With idempotency keys ("stateless+idempotency") every logical call carries a key (the client,
the call); the server that executes the call records it, atomically with the side effect, in
the execution records (local to its process or shared). A server that sees the key recorded
answers with the recorded result, unexecuted and without the call's progress; one that does not
see it (the record is in another process, expired, or lost with its process) executes again.
"""
from __future__ import annotations

from typing import Optional, Tuple

from . import event_ids
from .config import SystemConfig
from .entries import Item, Truth
from .history import RecordExpired
from .pairs import tdel, tget, tset
from .server_events import Emitted, Initialized
from .servers import LiveSession
from .state import State, Stream, holder, replace_at, slot_of
from .work import work_start

#: Stream.admission of a stateless request's response stream
REQUEST_ADMISSION = "request"
#: StreamClosed reasons after which a stateless request still runs: the server did not see the
#: break (half-open), the request is over, or its process is gone with it
REQUEST_RUNS_ON = ("half_open", "complete", "instance_stop")


def issue(state: State, config: SystemConfig, c: int, instance: int) -> Tuple[State, list]:
    """Client `c` POSTs its unfinished calls to `instance`: a new request runs there, its
    response stream opens. Without a session id a sticky LB has nothing to hash: it routes
    round-robin, like a round-robin LB."""
    client = state.clients[c]
    token, start = state.next_token, work_start(config, client)
    if config.lb in ("round_robin", "sticky"):
        state = state.replace(rr=(instance + 1) % len(state.instances))
    inst = state.instances[instance]
    inst = inst.replace(sessions=tset(inst.sessions, token,
                                      LiveSession(client.ident, start, 1, start, 0)))
    state = state.replace(next_token=token + 1, owners=tset(state.owners, token, client.ident),
                          instances=replace_at(state.instances, instance, inst))
    stream = Stream(instance, token, "init", None, 1, False, 0, REQUEST_ADMISSION)
    client = client.replace(phase="open", token=token, cursor=None, persisted=None,
                            stream=stream, inflight=(), seen=frozenset(),
                            inits=client.inits + 1)
    state = state.replace(clients=replace_at(state.clients, c, client))
    return state, [Initialized(client.ident, instance, token, start, client.inits > 1, None)]


def result_of(config: SystemConfig, msg: int) -> int:
    """The result message of the call that message `msg` belongs to."""
    return min((msg // config.messages_per_call + 1) * config.messages_per_call,
               config.messages_per_session) - 1


def record_key(config: SystemConfig, ident: int, msg: int) -> int:
    """The key of client `ident`'s call whose result is message `msg` (its idempotency key),
    as the int the sorted pair tuples hold (`record_call` reads it back)."""
    return ident * config.messages_per_session + msg


def record_call(config: SystemConfig, key: int) -> Tuple[int, int]:
    """(client, result message) of an execution record's key."""
    return key // config.messages_per_session, key % config.messages_per_session


def record_visible(state: State, config: SystemConfig, instance: int, ident: int,
                   msg: int) -> bool:
    """`instance` sees an execution record of client `ident`'s call whose result is `msg`."""
    records = state.records if config.execution_record == "shared" \
        else state.instances[instance].records
    return tget(records, record_key(config, ident, msg)) is not None


def _missed_record(state: State, config: SystemConfig, ident: int, msg: int) -> str:
    """Why a server executes a call again although it was executed before (ground truth)."""
    if not config.idempotency:
        return "reissued_after_break"
    if config.execution_record == "local" and any(
            inst.status != "down" and tget(inst.records, record_key(config, ident, msg))
            is not None
            for inst in state.instances):
        return "record_elsewhere"
    return "record_gone"


def _record(state: State, config: SystemConfig, instance: int, ident: int, msg: int,
            token: int) -> State:
    """Write the execution record of a call, where records live."""
    key = record_key(config, ident, msg)
    if config.execution_record == "shared":
        return state.replace(records=tset(state.records, key, token))
    inst = state.instances[instance]
    inst = inst.replace(records=tset(inst.records, key, token))
    return state.replace(instances=replace_at(state.instances, instance, inst))


def emit_request(state: State, config: SystemConfig, token: int) -> Tuple[State, list]:
    """The instance running request `token` sends its next message on the request's response
    stream (to the client only while that stream is open). Emitting a result executes the call,
    unless the call's key is recorded where this instance looks: then the recorded result is
    sent instead, unexecuted, and the call's remaining progress is skipped. A request whose
    last message is sent is over: it leaves the process."""
    h = holder(state, config, token)
    assert h is not None    # enabled only where some instance runs the request
    inst = state.instances[h]
    live = tget(inst.sessions, token)
    msg, ident = live.next_msg, live.client
    recorded = config.idempotency and \
        record_visible(state, config, h, ident, result_of(config, msg))
    if recorded:
        msg = result_of(config, msg)
    serial, seq, counter = state.serial + 1, live.seq + 1, inst.counter + 1
    wire = event_ids.mint(config.event_ids, token, 1, seq, counter, serial)
    truth = Truth(msg, token, 1, serial)
    sessions = tdel(inst.sessions, token) if msg + 1 >= config.messages_per_session else \
        tset(inst.sessions, token, live.replace(next_msg=msg + 1, seq=seq))
    inst = inst.replace(sessions=sessions, counter=counter)
    state = state.replace(instances=replace_at(state.instances, h, inst), serial=serial)
    clients, live_to = list(state.clients), []
    item = Item(wire, truth, "recorded" if recorded else "live")
    for c, client in enumerate(clients):
        stream = client.stream
        if client.phase == "open" and stream is not None and stream.instance == h and \
                stream.token == token:
            clients[c] = client.replace(inflight=client.inflight + (item,))
            live_to.append(client.ident)
    result = config.is_result(msg)
    first: Optional[Tuple[int, int]] = None
    again = ""
    if result and not recorded:
        owner_slot = slot_of(state, ident)
        if owner_slot is not None:
            owner = clients[owner_slot]
            first = tget(owner.executed, msg)
            if first is None:
                clients[owner_slot] = owner.replace(executed=tset(owner.executed, msg,
                                                                  (token, 1)))
            else:
                again = _missed_record(state, config, ident, msg)
        if config.idempotency:
            state = _record(state, config, h, ident, msg, token)
    state = forget_request(state.replace(clients=tuple(clients)), token)
    return state, [Emitted(h, token, 1, msg, ident, wire, tuple(live_to), None, result,
                           config.has_side_effect(msg), first, again, recorded)]


def cancel_request(state: State, instance: int, token: int) -> State:
    """The server saw the request's response stream close: the request stops where it is."""
    inst = state.instances[instance]
    if tget(inst.sessions, token) is None:
        return state
    inst = inst.replace(sessions=tdel(inst.sessions, token))
    return state.replace(instances=replace_at(state.instances, instance, inst))


def forget_request(state: State, token: int) -> State:
    """Drop the ground-truth owner of request `token` once nothing refers to it: no process
    runs it and no client has its messages in flight."""
    if any(tget(inst.sessions, token) is not None for inst in state.instances):
        return state
    if any(item.truth.token == token for client in state.clients for item in client.inflight):
        return state
    return state.replace(owners=tdel(state.owners, token))


def expire(state: State, config: SystemConfig, instance: Optional[int], ident: int,
           msg: int) -> Tuple[State, list]:
    """An execution record reaches its TTL and is gone."""
    key = record_key(config, ident, msg)
    if instance is None:
        state = state.replace(records=tdel(state.records, key))
    else:
        inst = state.instances[instance]
        inst = inst.replace(records=tdel(inst.records, key))
        state = state.replace(instances=replace_at(state.instances, instance, inst))
    return state, [RecordExpired(instance, ident, msg)]
