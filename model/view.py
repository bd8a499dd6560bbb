"""What a deciding instance can see (DESIGN §2): the `ServerView` given to every gate.

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
  BufferView.wires / .floor / .hwm      retained ids in order, last dropped id, newest id
  CursorView.wire / .owner / .generation / .found / .position
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


class BufferView(NamedTuple):
    wires: Tuple[WireId, ...]      # retained ids, oldest first
    floor: Optional[WireId]        # the most recently dropped id (None: nothing dropped)

    @property
    def hwm(self) -> Optional[WireId]:
        """The newest id the buffer holds or held."""
        return self.wires[-1] if self.wires else self.floor


class CursorView(NamedTuple):
    wire: Optional[WireId]         # Last-Event-ID as presented
    owner: Optional[int]           # session that issued it, if decodable or found; else None
    generation: Optional[int]      # generation it was emitted at, if decodable or found
    found: bool                    # found by this deployment's lookup (S's buffer or the id store)
    position: str                  # one of POSITIONS, relative to S's buffer


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

    @property
    def cursor_is_foreign(self) -> bool:
        """The instance can tell that E was issued by another session."""
        return self.cursor.owner is not None and self.cursor.owner != self.session
