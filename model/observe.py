"""Build the `ServerView` a deciding instance has of a resumption request, and look cursors up.

This is the only place that turns the (ground-truth) state into what an instance can see; gates
never see the state itself.
"""
from __future__ import annotations

from typing import Optional, Tuple

from . import event_ids
from .config import SystemConfig
from .entries import Buffer, Entry
from .pairs import tget
from .protocol import ResumeRequest, WireId
from .servers import LiveSession, SessionRecord
from .state import State, buffer_key, buffer_of, visible_buffers
from .view import (
    ABOVE_HWM,
    AT_FLOOR,
    BELOW_FLOOR,
    IDS_PER_PROCESS,
    IDS_PER_SESSION,
    IDS_TAGGED,
    IDS_UNIQUE,
    IN_BUFFER,
    IN_RANGE,
    NO_BUFFER,
    NO_CURSOR,
    UNKNOWN,
    BufferView,
    CursorView,
    ServerView,
)


def id_guarantee(config: SystemConfig) -> str:
    """What this deployment's event ids prove about their issuer (see model.view). A "global"
    counter is fleet-wide where buffers are shared (one counter beside them) and per process
    where buffers are local (it restarts with the process, and every process counts)."""
    if config.event_ids == "tagged":
        return IDS_TAGGED
    if config.event_ids == "uuid" or (config.event_ids == "global" and config.buffer == "shared"):
        return IDS_UNIQUE
    return IDS_PER_PROCESS if config.event_ids == "global" else IDS_PER_SESSION


def lookup(state: State, config: SystemConfig, instance: int, token: int,
           wire: WireId) -> Optional[Entry]:
    """The entry this deployment finds for cursor `wire`: in S's buffer (keying "session") or in
    every buffer the instance can read (keying "event_id"). If an id was reused, the most recently
    emitted entry wins, as in a store that overwrites by key."""
    if config.buffer_keying == "session":
        buffer = buffer_of(state, config, instance, token)
        return None if buffer is None else _latest(buffer.entries, wire, None)
    best: Optional[Entry] = None
    for _, b in visible_buffers(state, config, instance):   # in order, as one sequence
        best = _latest(b.entries, wire, best)
    return best


def _latest(entries: Tuple[Entry, ...], wire: WireId, best: Optional[Entry]) -> Optional[Entry]:
    """The entry of `entries` with id `wire` emitted last, or `best` if it was later (the
    earlier of two alike)."""
    for entry in entries:
        if entry.wire == wire and (best is None or entry.truth.serial > best.truth.serial):
            best = entry
    return best


def position(scheme: str, wire: Optional[WireId], buffer: Optional[Buffer]) -> str:
    """Where `wire` lies relative to `buffer` (see model.view.POSITIONS)."""
    if wire is None:
        return NO_CURSOR
    if buffer is None:
        return NO_BUFFER
    if any(e.wire == wire for e in buffer.entries):
        return IN_BUFFER
    if buffer.floor is not None and buffer.floor.wire == wire:
        return AT_FLOOR
    key = event_ids.order_key(scheme, wire)
    if key is None:
        return UNKNOWN
    if buffer.floor is not None:
        floor_key = event_ids.order_key(scheme, buffer.floor.wire)
        if floor_key is not None and key < floor_key:
            return BELOW_FLOOR
    newest = buffer.entries[-1] if buffer.entries else buffer.floor
    if newest is None:
        return ABOVE_HWM  # an empty stream has issued nothing: any cursor is ahead of it
    newest_key = event_ids.order_key(scheme, newest.wire)
    if newest_key is not None and key > newest_key:
        return ABOVE_HWM
    return IN_RANGE


def build_view(state: State, config: SystemConfig, instance: int,
               request: ResumeRequest) -> ServerView:
    """What `instance` knows when it decides `request`."""
    inst = state.instances[instance]
    token = request.session
    live: Optional[LiveSession] = tget(inst.sessions, token)
    if config.store == "shared":
        record: Optional[SessionRecord] = tget(state.registry, token)
        known = record is not None
        held = live is not None and record is not None and live.generation == record.generation
        recreates = known and not held
        generation: Optional[int] = None
        if live is not None and held:
            generation = live.generation
        elif record is not None:
            generation = record.generation + 1
    else:
        known = held = live is not None
        recreates = False
        generation = live.generation if live is not None else None
    buffer = buffer_of(state, config, instance, token)
    buffer_view = None if buffer is None else BufferView(
        tuple(e.wire for e in buffer.entries), buffer.floor.wire if buffer.floor else None)
    return ServerView(instance, inst.incarnation, token, known, held, generation, recreates,
                      buffer_view, _cursor_view(state, config, instance, token,
                                                request.last_event_id, buffer),
                      id_guarantee(config))


def _cursor_view(state: State, config: SystemConfig, instance: int, token: int,
                 wire: Optional[WireId], buffer: Optional[Buffer]) -> CursorView:
    """What the instance learns about E. Invariant: `owner` and `generation` are set only when
    the id proves them (decoded from a tagged id, or a unique id found in a stream the store
    attributes to a session); a reused counter value never is."""
    if wire is None:
        return CursorView(None, None, None, False, NO_CURSOR)
    owner, generation = event_ids.decode(config.event_ids, wire)
    entry = lookup(state, config, instance, token, wire)
    found = entry is not None
    own_stream = buffer_key(config, token)
    elsewhere = entry is not None and buffer_key(config, entry.truth.token) != own_stream
    if not found and buffer is not None and buffer.floor is not None \
            and buffer.floor.wire == wire:
        entry = buffer.floor  # the instance remembers the id it last dropped from S's buffer
    if entry is not None and owner is None and id_guarantee(config) == IDS_UNIQUE \
            and config.buffer_keying != "request_id":  # a request-id stream names no session
        owner, generation = entry.truth.token, entry.truth.generation
    return CursorView(wire, owner, generation, found, position(config.event_ids, wire, buffer),
                      elsewhere)
