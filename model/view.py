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

from typing import NamedTuple, Optional, Tuple

from .protocol import WireId

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


class BufferView(NamedTuple):
    wires: Tuple[WireId, ...]      # retained ids, oldest first
    floor: Optional[WireId]        # the most recently dropped id (None: nothing dropped)

    @property
    def hwm(self) -> Optional[WireId]:
        """The newest id the buffer holds or held."""
        return self.wires[-1] if self.wires else self.floor


class CursorView(NamedTuple):
    wire: Optional[WireId]         # Last-Event-ID as presented
    owner: Optional[int]           # session that issued it, if the id proves it; else None
    generation: Optional[int]      # generation it was emitted at, if the id proves it
    found: bool                    # found by this deployment's lookup (S's buffer or the id store)
    position: str                  # one of POSITIONS, relative to S's own buffer
    elsewhere: bool = False        # found in a stream other than S's own (an id-keyed store
    #                                 follows E there: a replay would come from that stream)


class ServerView(NamedTuple):
    instance: int
    incarnation: int
    session: int
    registry_has_session: bool
    held_locally: bool
    generation: Optional[int]
    recreates: bool
    buffer: Optional[BufferView]
    cursor: CursorView
    ids: str = IDS_TAGGED          # one of ID_GUARANTEES

    @property
    def cursor_is_foreign(self) -> bool:
        """The instance can tell that E was issued by another session."""
        return self.cursor.owner is not None and self.cursor.owner != self.session
