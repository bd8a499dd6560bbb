"""What a deciding instance can see: the `ServerView` given to every gate.

A gate is any callable `gate(request: ResumeRequest, view: ServerView) -> Decision`. The view holds
only what the instance could know: its registry lookup, its replay buffer for the session, and what
it can decode or look up about the cursor. Ground truth (who really issued an id) is not in it.

Fields a gate may read:
  ServerView.instance, .incarnation     the deciding instance and its process incarnation
  ServerView.registry_has_session       the registry this deployment uses holds S as live
  ServerView.held_locally               this process holds S's live state (the MCP SDK's table)
  ServerView.generation                 generation S will be served at here (None if unknown)
  ServerView.recreates                  serving S here recreates its state (a new generation)
  ServerView.buffer                     BufferView of S's replay buffer, or None
  ServerView.cursor                     CursorView of Last-Event-ID
  ServerView.ids                        what this deployment's event ids can prove (IDS_*)
  BufferView.wires / .floor / .hwm      retained ids in order, last dropped id, newest id
  CursorView.wire / .owner / .generation / .found / .elsewhere / .position

Attribution (`CursorView.owner`, `.generation`) is only what the id can prove: a tagged id says
who issued it; a unique id (a uuid, or a counter shared by the whole fleet) is attributed by
finding it. A counter that several sessions or generations count with (a per-session counter,
which restarts with every session and generation; a per-process counter, which restarts with the
process while other processes count too) names a position, not an issuer: the same id may have
been issued by someone else, so `owner` and `generation` stay None even when the lookup finds an
entry with that id. Where E was found is a separate fact (`found`, `elsewhere`).
"""
from __future__ import annotations

from typing import Any, Final, Optional, Tuple

from .protocol import WireId
from .record import UNHASHED, Record

# Where the cursor lies relative to S's buffer.
NO_CURSOR = "no_cursor"        # the GET carried no Last-Event-ID
NO_BUFFER = "no_buffer"        # this instance has no buffer for S
IN_BUFFER = "in_buffer"        # E is a retained entry of S's buffer
AT_FLOOR = "at_floor"          # E is the last dropped id: replaying after it loses nothing
BELOW_FLOOR = "below_floor"    # E is older than the floor: events after E were dropped (a gap)
ABOVE_HWM = "above_hwm"        # E is newer than anything S's buffer ever held
IN_RANGE = "in_range"          # E compares within [floor, hwm] but is not an entry
UNKNOWN = "unknown"            # E cannot be compared (opaque id) and is not an entry
POSITIONS = (NO_CURSOR, NO_BUFFER, IN_BUFFER, AT_FLOOR, BELOW_FLOOR, ABOVE_HWM, IN_RANGE, UNKNOWN)

# What the deployment's event ids can prove about who issued them (ServerView.ids).
IDS_TAGGED = "tagged"                    # (session, generation, seq): decodable by any instance
IDS_UNIQUE = "unique"                    # never reused (uuids, one fleet-wide counter): a found
#                                          id names its issuer
IDS_PER_PROCESS = "per_process_counter"  # a process's counter: restarts with the process, and
#                                          other processes issue the same numbers
IDS_PER_SESSION = "per_session_counter"  # every session and generation counts from 1
ID_GUARANTEES = (IDS_TAGGED, IDS_UNIQUE, IDS_PER_PROCESS, IDS_PER_SESSION)


class BufferView(Record):
    __slots__ = ("wires", "floor")
    _fields = ("wires", "floor")
    wires: Final[Tuple[WireId, ...]]  # retained ids, oldest first
    floor: Final[Optional[WireId]]  # the most recently dropped id (None: nothing dropped)

    def __init__(self, wires: Tuple[WireId, ...], floor: Optional[WireId]) -> None:
        self.wires = wires
        self.floor = floor
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.wires, self.floor)

    @property
    def hwm(self) -> Optional[WireId]:
        """The newest id the buffer holds or held."""
        return self.wires[-1] if self.wires else self.floor


class CursorView(Record):
    __slots__ = ("wire", "owner", "generation", "found", "position", "elsewhere")
    _fields = ("wire", "owner", "generation", "found", "position", "elsewhere")
    wire: Final[Optional[WireId]]  # Last-Event-ID as presented
    owner: Final[Optional[int]]  # session that issued it, if the id proves it; else None
    generation: Final[Optional[int]]  # generation it was emitted at, if the id proves it
    found: Final[bool]  # found by this deployment's lookup (S's buffer or the id store)
    position: Final[str]  # one of POSITIONS, relative to S's own buffer
    elsewhere: Final[bool]  # found in a stream other than S's own (an id-keyed store
                            # follows E there: a replay would come from that stream)

    def __init__(self, wire: Optional[WireId], owner: Optional[int], generation: Optional[int],
                 found: bool, position: str, elsewhere: bool = False) -> None:
        self.wire = wire
        self.owner = owner
        self.generation = generation
        self.found = found
        self.position = position
        self.elsewhere = elsewhere
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.wire, self.owner, self.generation, self.found, self.position, self.elsewhere)


class ServerView(Record):
    __slots__ = ("instance", "incarnation", "session", "registry_has_session", "held_locally",
                 "generation", "recreates", "buffer", "cursor", "ids")
    _fields = ("instance", "incarnation", "session", "registry_has_session", "held_locally",
               "generation", "recreates", "buffer", "cursor", "ids")
    instance: Final[int]
    incarnation: Final[int]
    session: Final[int]
    registry_has_session: Final[bool]
    held_locally: Final[bool]
    generation: Final[Optional[int]]
    recreates: Final[bool]
    buffer: Final[Optional[BufferView]]
    cursor: Final[CursorView]
    ids: Final[str]  # one of ID_GUARANTEES

    def __init__(self, instance: int, incarnation: int, session: int, registry_has_session: bool,
                 held_locally: bool, generation: Optional[int], recreates: bool,
                 buffer: Optional[BufferView], cursor: CursorView, ids: str = IDS_TAGGED) -> None:
        self.instance = instance
        self.incarnation = incarnation
        self.session = session
        self.registry_has_session = registry_has_session
        self.held_locally = held_locally
        self.generation = generation
        self.recreates = recreates
        self.buffer = buffer
        self.cursor = cursor
        self.ids = ids
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.instance, self.incarnation, self.session, self.registry_has_session,
                self.held_locally, self.generation, self.recreates, self.buffer, self.cursor,
                self.ids)

    @property
    def cursor_is_foreign(self) -> bool:
        """The instance can tell that E was issued by another session."""
        return self.cursor.owner is not None and self.cursor.owner != self.session
