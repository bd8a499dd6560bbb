"""The tasks transport (protocol 2026-07-28 with the Tasks extension): a call returns a task
handle at once, the work runs in the background, and the client polls the task for it.

`Init` is the client's POST of its unfinished calls: the instance the LB picks creates a task
(its id is the state's `token`), writes the task record where records live (`execution_record`:
in its own process, or shared) and starts the work; the client holds the handle (phase "idle",
`token` the task id; the handle is persisted with it). The worker process runs the work without
any client connection and appends each message it produces to the task record, if the record
is still there. A poll (`Reconnect`) is a request of its own, routed by the LB like any POST:
there is no session id for a sticky LB to hash. The polled instance reads the task record:

- no record there (it is local to another process, was lost with its process, or expired):
  "task not found"; the client re-issues its unfinished calls as a new task, and a call the old
  task executed already is executed again;
- messages the client has not seen (after its cursor, the last message it got from this task):
  they come back on the poll's response, which ends when they are delivered;
- nothing new, and a process still runs the task: "working"; the client polls again later;
- nothing new, and no process runs the task (its worker stopped, the record is shared):
  "working" forever. The model holds the client on that answer (an open poll stream on which
  nothing can arrive: a stall) until the record expires, the client restarts or the poll is cut
  by a fault; repeating the same answer every poll interval changes nothing in between.

A task record is `Buffer(entries)`: the messages the worker produced, in order. The task is
complete once its last entry is the client's last message.
"""
from __future__ import annotations

from typing import Optional, Tuple

from . import event_ids
from .config import SystemConfig
from .entries import Buffer, Entry, Item, Truth
from .pairs import Pairs, tdel, tget, tset
from .server_events import Emitted, Initialized, TaskExpired, TaskPolled
from .servers import LiveSession
from .state import State, Stream, holder, replace_at, slot_of
from .work import work_start

#: Stream.admission of a poll's response
POLL_ADMISSION = "poll"


def task_records(state: State, config: SystemConfig, instance: int) -> Pairs:
    """The task records `instance` can read: its own process's, or the shared ones."""
    return state.records if config.execution_record == "shared" \
        else state.instances[instance].records


def _routed(state: State, config: SystemConfig, instance: int) -> State:
    """The LB after routing a request that carries no session id to `instance`: a sticky LB
    has nothing to hash and routes it round-robin, like a round-robin LB."""
    if config.lb in ("round_robin", "sticky"):
        return state.replace(rr=(instance + 1) % len(state.instances))
    return state


def create_task(state: State, config: SystemConfig, c: int, instance: int) -> Tuple[State, list]:
    """Client `c` POSTs its unfinished calls to `instance`: a task is created there, its record
    written, its work started; the client holds the (persisted) handle."""
    client = state.clients[c]
    token, start = state.next_token, work_start(config, client)
    state = _routed(state, config, instance)
    inst = state.instances[instance]
    inst = inst.replace(sessions=tset(inst.sessions, token,
                                      LiveSession(client.ident, start, 1, start, 0)))
    if config.execution_record == "local":
        inst = inst.replace(records=tset(inst.records, token, Buffer()))
    else:
        state = state.replace(records=tset(state.records, token, Buffer()))
    state = state.replace(next_token=token + 1, owners=tset(state.owners, token, client.ident),
                          instances=replace_at(state.instances, instance, inst))
    client = client.replace(phase="idle", token=token, cursor=None, persisted=(token, None),
                            stream=None, inflight=(), seen=frozenset(), inits=client.inits + 1)
    state = state.replace(clients=replace_at(state.clients, c, client))
    return state, [Initialized(client.ident, instance, token, start, client.inits > 1, None)]


def _why_again(state: State, config: SystemConfig, ident: int, token: int) -> str:
    """Why a task executes a call an earlier task of the same client executed (ground truth):
    that task's record is local to a process that still runs ("record_elsewhere"), or it is
    gone: lost with its process, or expired ("record_gone")."""
    if config.execution_record == "local":
        for inst in state.instances:
            if inst.status != "down" and any(
                    t != token and tget(state.owners, t) == ident for t, _ in inst.records):
                return "record_elsewhere"
    return "record_gone"


def emit_task(state: State, config: SystemConfig, token: int) -> Tuple[State, list]:
    """The worker of task `token` produces its next message: it is appended to the task record
    (if the record is still there) and reaches no client until a poll. Producing a result
    executes the call."""
    h = holder(state, config, token)
    assert h is not None    # enabled only where some instance runs the task
    inst = state.instances[h]
    live = tget(inst.sessions, token)
    msg, ident = live.next_msg, live.client
    serial, seq, counter = state.serial + 1, live.seq + 1, inst.counter + 1
    wire = event_ids.mint(config.event_ids, token, 1, seq, counter, serial)
    entry = Entry(wire, Truth(msg, token, 1, serial))
    sessions = tdel(inst.sessions, token) if msg + 1 >= config.messages_per_session else \
        tset(inst.sessions, token, live.replace(next_msg=msg + 1, seq=seq))
    inst = inst.replace(sessions=sessions, counter=counter)
    record = tget(inst.records if config.execution_record == "local" else state.records, token)
    if record is not None:
        record = Buffer(record.entries + (entry,), None)
        if config.execution_record == "local":
            inst = inst.replace(records=tset(inst.records, token, record))
        else:
            state = state.replace(records=tset(state.records, token, record))
    state = state.replace(instances=replace_at(state.instances, h, inst), serial=serial)
    result = config.is_result(msg)
    first: Optional[Tuple[int, int]] = None
    again = ""
    owner_slot = slot_of(state, ident)
    if result and owner_slot is not None:
        owner = state.clients[owner_slot]
        first = tget(owner.executed, msg)
        if first is None:
            owner = owner.replace(executed=tset(owner.executed, msg, (token, 1)))
            state = state.replace(clients=replace_at(state.clients, owner_slot, owner))
        else:
            again = _why_again(state, config, ident, token)
    return state, [Emitted(h, token, 1, msg, ident, wire, (), None, result,
                           config.has_side_effect(msg), first, again, False)]


def task_complete(config: SystemConfig, record: Buffer) -> bool:
    """The task's record holds the last message of its client's work."""
    return bool(record.entries) and \
        record.entries[-1].truth.msg == config.messages_per_session - 1


def poll(state: State, config: SystemConfig, c: int, instance: int) -> Tuple[State, list]:
    """Client `c` polls its task at `instance` (see the module docstring for the outcomes)."""
    client = state.clients[c]
    token = client.token
    assert token is not None    # enabled only for a client holding a task handle
    state = _routed(state, config, instance)
    record = tget(task_records(state, config, instance), token)
    if record is None:
        client = client.replace(phase="needs_init", token=None, cursor=None)
        state = state.replace(clients=replace_at(state.clients, c, client))
        return state, [TaskPolled(client.ident, instance, token, "unknown", 0)]
    cursor = client.cursor
    after = cursor.truth.msg if cursor is not None and cursor.truth is not None and \
        cursor.truth.token == token else -1
    items = tuple(Item(e.wire, e.truth, "task") for e in record.entries if e.truth.msg > after)
    orphaned = not items and not task_complete(config, record) and \
        holder(state, config, token) is None
    outcome = "progress" if items else "orphaned" if orphaned else "working"
    if items or orphaned:     # a response that ends once drained, or one that never ends
        stream = Stream(instance, token, "resume", None, None, False, 0, POLL_ADMISSION,
                        False, bool(items))
        client = client.replace(phase="open", stream=stream, inflight=items)
        state = state.replace(clients=replace_at(state.clients, c, client))
    return state, [TaskPolled(client.ident, instance, token, outcome, len(items))]


def poll_is_dead(state: State, config: SystemConfig, stream: Stream) -> bool:
    """A poll's response on which nothing can arrive: the task has no worker left (the poll
    that finds new messages ends once they are delivered, and is never dead)."""
    return not stream.ends_when_drained and holder(state, config, stream.token) is None


def expire_task(state: State, config: SystemConfig, instance: Optional[int],
                token: int) -> Tuple[State, list]:
    """A task record reaches its TTL and is gone (a poll held on its "working" answer ends:
    `held_on`, closed by the caller; the next poll finds no record)."""
    if instance is None:
        state = state.replace(records=tdel(state.records, token))
    else:
        inst = state.instances[instance]
        inst = inst.replace(records=tdel(inst.records, token))
        state = state.replace(instances=replace_at(state.instances, instance, inst))
    return state, [TaskExpired(instance, token)]


def held_on(state: State, instance: Optional[int], token: int) -> Tuple[int, ...]:
    """The clients held on a poll of task `token` that reads the record at `instance` (None:
    the shared one): nothing in flight, the answer that never ends."""
    return tuple(c for c, client in enumerate(state.clients)
                 if client.phase == "open" and client.stream is not None
                 and client.stream.token == token and not client.inflight
                 and client.stream.admission == POLL_ADMISSION
                 and (instance is None or client.stream.instance == instance))
