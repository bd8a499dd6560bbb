"""What an emitted event leaves behind: its ground truth, its entry in a replay buffer, the item
in flight to a client, and the cursor a client holds after it.

Records (`model.record`): immutable, compared and hashed by value.
"""
from __future__ import annotations

from typing import Any, Final, Optional, Tuple

from .protocol import WireId
from .record import UNHASHED, Record
from .vocabulary import Via


class Truth(Record):
    """Ground-truth identity of an emitted event; the wire does not carry it. Whose work the
    message is follows from its session (`owner_of(state, token)`)."""

    __slots__ = ("msg", "token", "generation", "serial")
    _fields = ("msg", "token", "generation", "serial")
    msg: Final[int]         # index of the message in its session owner's work
    token: Final[int]       # session it was emitted on
    generation: Final[int]  # generation of that session's state at emission
    serial: Final[int]      # unique over the run, in emission order

    def __init__(self, msg: int, token: int, generation: int, serial: int) -> None:
        self.msg = msg
        self.token = token
        self.generation = generation
        self.serial = serial
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.msg, self.token, self.generation, self.serial)


class Entry(Record):
    """One retained event in a replay buffer."""

    __slots__ = ("wire", "truth")
    _fields = ("wire", "truth")
    wire: Final[WireId]
    truth: Final[Truth]

    def __init__(self, wire: WireId, truth: Truth) -> None:
        self.wire = wire
        self.truth = truth
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.wire, self.truth)


class Buffer(Record):
    """A session's replay buffer. Invariant: `floor` is the most recently dropped entry, so a
    cursor equal to `floor.wire` replays every retained entry; None if nothing was dropped."""

    __slots__ = ("entries", "floor")
    _fields = ("entries", "floor")
    entries: Final[Tuple[Entry, ...]]
    floor: Final[Optional[Entry]]

    def __init__(self, entries: Tuple[Entry, ...] = (), floor: Optional[Entry] = None) -> None:
        self.entries = entries
        self.floor = floor
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.entries, self.floor)


class Item(Record):
    """An event in flight to a client on its open stream."""

    __slots__ = ("wire", "truth", "via")
    _fields = ("wire", "truth", "via")
    wire: Final[WireId]
    truth: Final[Truth]
    via: Final[Via]

    def __init__(self, wire: WireId, truth: Truth, via: Via) -> None:
        self.wire = wire
        self.truth = truth
        self.via = via
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.wire, self.truth, self.via)


class Cursor(Record):
    __slots__ = ("wire", "truth")
    _fields = ("wire", "truth")
    wire: Final[WireId]
    truth: Final[Optional[Truth]]

    def __init__(self, wire: WireId, truth: Optional[Truth]) -> None:
        self.wire = wire
        self.truth = truth
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.wire, self.truth)
