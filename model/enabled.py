"""Which actions are enabled in a state, in a fixed order (`enabled_actions`), so the same state
always yields the same list, and whether one action is (`is_enabled`).
"""
from __future__ import annotations

from typing import FrozenSet, List

from .actions import (
    Action,
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
from .config import SystemConfig
from .lb import route_choices
from .pairs import tget
from .state import State
from .work import emit_possible, live_tokens, work_done, work_start

#: the action kinds a stateless transport has no use for: no session to persist, resume,
#: evict or compact the buffer of
SESSION_ONLY: FrozenSet[type] = frozenset({Persist, Reconnect, ForeignCursor, Evict, Compact})
#: ... and those the tasks transport has no use for: a task handle is persisted and polled (a
#: `Reconnect` is a poll), but there is no session to evict or buffer to compact
NOT_FOR_TASKS: FrozenSet[type] = frozenset({ForeignCursor, Evict, Compact})

def is_enabled(state: State, config: SystemConfig, action: "Action") -> bool:
    """Whether `action` may be applied in `state` (arrivals and departures included)."""
    if type(action) is Arrive:
        return True
    if type(action) is Depart:
        return 0 <= action.client < len(state.clients) and \
            state.clients[action.client].phase != "gone"
    return action in enabled_actions(state, config)


def enabled_actions(state: State, config: SystemConfig,
                    without: FrozenSet[type] = frozenset()) -> List["Action"]:
    """Every action enabled in `state`, in a fixed order (closed system: no arrivals or
    departures, which the open-system engines schedule themselves), leaving out the action
    kinds in `without` (an explorer's spent budgets): the rest keep their order."""
    if config.transport != "sessions":
        without = without | (NOT_FOR_TASKS if config.tasks else SESSION_ONLY)
    out: List[Action] = []
    init, persist, drop = Init not in without, Persist not in without, Disconnect not in without
    idle, crash = IdleTimeout not in without, ClientRestart not in without
    half_open = HalfOpen not in without
    foreign, drain, stop = ForeignCursor not in without, Drain not in without, Stop not in without
    for c, client in enumerate(state.clients):
        if client.phase == "gone":
            continue
        if init and (client.phase == "new" or client.phase == "needs_init") and \
                work_start(config, client) < \
                config.messages_per_session:
            for i in route_choices(state, config, None):
                out.append(Init(c, i))
        if client.inflight:
            out.append(Deliver(c))
        if persist and client.token is not None and \
                client.persisted != (client.token, client.cursor):
            out.append(Persist(c))
        if client.phase == "open":
            if drop:
                out.append(Disconnect(c))
            if half_open:
                out.append(HalfOpen(c))
            if idle and not client.inflight:
                out.append(IdleTimeout(c))
        if crash and client.phase != "new":
            out.append(ClientRestart(c))
        if client.phase == "idle" and client.token is not None:
            if config.tasks:     # a poll, while the task owes the client something: it
                if work_done(config, client):    # carries no session id for an LB to hash
                    continue
                for i in route_choices(state, config, None):
                    out.append(Reconnect(c, i))
                continue
            for i in route_choices(state, config, client.token):
                out.append(Reconnect(c, i))
            if not foreign:
                continue
            for d, donor in enumerate(state.clients):
                if d != c and donor.cursor is not None and donor.cursor != client.cursor \
                        and donor.cursor.truth is not None \
                        and donor.cursor.truth.token != client.token:
                    out.append(ForeignCursor(c, d))
    live = live_tokens(state, config)
    for token in live:
        if emit_possible(state, config, token):
            out.append(Emit(token))
    for i, inst in enumerate(state.instances):
        if drain and inst.status == "up":
            out.append(Drain(i))
        if stop and (inst.status == "up" or inst.status == "draining"):
            out.append(Stop(i))
        if inst.status == "down":
            out.append(Start(i))
    if Evict not in without:
        for token in live:
            out.append(Evict(token))
    if config.tasks and Expire not in without:   # a task record's key: the task id
        out.extend(Expire(None, tget(state.owners, key), key) for key, _ in state.records)
        for i, inst in enumerate(state.instances):
            out.extend(Expire(i, tget(state.owners, key), key) for key, _ in inst.records)
    elif config.idempotency and Expire not in without:
        per = config.messages_per_session    # a record's key: client * per + result message
        out.extend(Expire(None, key // per, key % per) for key, _ in state.records)
        for i, inst in enumerate(state.instances):
            out.extend(Expire(i, key // per, key % per) for key, _ in inst.records)
    if Compact in without:
        return out
    if config.buffer == "shared":
        for token, b in state.buffers:
            if b.entries:
                out.append(Compact(None, token))
    else:
        for i, inst in enumerate(state.instances):
            for token, b in inst.buffers:
                if b.entries:
                    out.append(Compact(i, token))
    return out
