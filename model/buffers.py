"""Recording an event: mint its id, append it to the session's replay buffer within capacity.

Both data events (`Emit`) and priming events (SEP-1699: an id with no data, sent when a stream
opens so the client holds a cursor before the first message) go through `record_event`, so ids
and buffers follow one rule. A priming entry has `truth.msg == PRIMING` and is never delivered.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

from . import event_ids
from .config import SystemConfig
from .entries import Buffer, Entry, Truth
from .pairs import tset
from .protocol import WireId
from .record import KEEP
from .servers import Instance, LiveSession
from .state import State, buffer_key, buffer_of, replace_at

PRIMING = -1


def append(buffer: Buffer, entry: Entry, capacity: int) -> Tuple[Buffer, Optional[WireId]]:
    """Append within capacity; the new buffer and the id it dropped (None if none).
    Invariant: len(entries) <= capacity and `floor` is the last entry dropped."""
    entries, floor, dropped = buffer.entries + (entry,), buffer.floor, None
    if len(entries) > capacity:
        floor, entries, dropped = entries[0], entries[1:], entries[0].wire
    return Buffer(entries, floor), dropped


def new_entry(state: State, config: SystemConfig, instance: int, token: int,
              live: LiveSession, msg: int) -> Entry:
    """The entry `record_event` buffers for the same arguments: message `msg` (or PRIMING) of
    session `token` run by `instance` at `live`'s generation, with the id minted for it."""
    serial = state.serial + 1
    counter = (state.counter if config.buffer == "shared"
               else state.instances[instance].counter) + 1
    wire = event_ids.mint(config.event_ids, token, live.generation, live.seq + 1, counter,
                          serial)
    return Entry(wire, Truth(msg, token, live.generation, serial))


def record_event(state: State, config: SystemConfig, instance: int, token: int,
                 live: LiveSession, msg: int, entry: Optional[Entry] = None,
                 clients: Any = KEEP) -> Tuple[State, Entry, Optional[WireId]]:
    """Mint an id for message `msg` (or PRIMING) of session `token` run by `instance` at
    `live`'s generation, and buffer it where buffers live. Returns the new state (counters and
    the session's per-session counter advanced), the entry and the id dropped for capacity.
    `entry`: `new_entry` of the same arguments, if made already; `clients`: the new state's
    clients, if they change too (one new state, not two)."""
    inst = state.instances[instance]
    seq, serial = live.seq + 1, state.serial + 1
    counter = (state.counter if config.buffer == "shared" else inst.counter) + 1
    if entry is None:
        entry = new_entry(state, config, instance, token, live, msg)
    buffer, dropped = append(buffer_of(state, config, instance, token) or Buffer(), entry,
                             config.buffer_capacity)
    live = LiveSession(live.client, live.work_start, live.generation,
                       live.next_msg + (msg != PRIMING), seq, live.orphan)
    sessions = tset(inst.sessions, token, live)
    if config.buffer == "shared":
        inst = Instance(inst.status, inst.incarnation, sessions, inst.buffers, inst.counter,
                        inst.records)
        return state.replace(buffers=tset(state.buffers, buffer_key(config, token), buffer),
                              counter=counter, serial=serial, clients=clients,
                              instances=replace_at(state.instances, instance,
                                                   inst)), entry, dropped
    inst = Instance(inst.status, inst.incarnation, sessions,
                    tset(inst.buffers, buffer_key(config, token), buffer), counter, inst.records)
    return state.replace(instances=replace_at(state.instances, instance, inst),
                          serial=serial, clients=clients), entry, dropped
