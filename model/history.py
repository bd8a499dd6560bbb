"""History events: the facts each transition records.

A history is a sequence of `(time, event)` pairs. A `client` field names a client by its
identity (`Client.ident`), which is also its index wherever clients never leave. Events state
facts (what was decided, what a client applied and whether it had applied it before);
`model.properties` turns them into violations. Engines add the time: a step number for
scripts, seconds for the DES.
"""
from __future__ import annotations

from typing import NamedTuple, Optional, Tuple

from .protocol import WireId
from .state import Via


class Initialized(NamedTuple):
    client: int
    instance: int
    token: int
    work_start: int     # first message of the work the new session runs
    reissue: bool       # the client had a session before: its unfinished calls are re-issued
    priming: Optional[WireId] = None  # id of the priming event that gave the client its cursor


class Emitted(NamedTuple):
    instance: int
    token: int
    generation: int
    msg: int
    owner: int          # client whose work the message is
    wire: WireId
    live_to: Tuple[int, ...]   # clients whose open stream carries it now
    dropped: Optional[WireId]  # id the buffer dropped to stay within capacity
    result: bool = False       # the message is a call's result: emitting it executes the call
    side_effect: bool = False  # ... and the call is non-idempotent
    first_execution: Optional[Tuple[int, int]] = None  # (token, generation) that executed this
    #                           call before, if any (ground truth): this is a re-execution


class Decided(NamedTuple):
    client: int
    instance: int
    token: int
    cursor: Optional[WireId]
    gate: str
    status: int
    code: str
    effect: str
    resume_from: Optional[WireId]
    registry_has_session: bool
    held_locally: bool
    live_elsewhere: bool       # the session is live in some registry or process (ground truth)
    recreated: Optional[int]   # generation created by this request, if any
    replayed: int              # events queued by the replay
    reason: str
    position: str = ""         # where the cursor lay relative to S's buffer (model.view)
    cursor_foreign: bool = False  # ground truth: the cursor was issued on another session
    recreates: bool = False    # serving S here needs its state recreated (it was lost here)


class Applied(NamedTuple):
    client: int
    wire: WireId
    owner: Optional[int]       # client whose work the message is (ground truth; None once
    #                            its session was forgotten)
    msg: int
    side_effect: bool          # a non-idempotent call result: applying it twice repeats
    token: int                 # session the event was emitted on
    generation: int            # generation it was emitted at
    via: Via                   # how it reached the client (model/state.py)
    first_token: Optional[int]  # session of the first application, if applied before
    first_generation: Optional[int]
    admission: str             # how the stream was opened (model.state.Stream.admission)
    client_gen: Optional[int]  # generation of the cursor the stream was admitted with
    serving_gen: Optional[int]
    cursor_foreign: bool
    holes: Tuple[int, ...]     # own earlier messages skipped for good, never told of a gap

    @property
    def duplicate(self) -> bool:
        return self.first_token is not None


class Dropped(NamedTuple):
    """A deduping client dropped an event whose id it had already seen on the session."""

    client: int
    wire: WireId
    owner: Optional[int]
    msg: int
    new: bool                  # the dropped message had never been applied (a reused id)


class Primed(NamedTuple):
    """A priming event (an id, no data) reached the client, which takes it as its cursor."""

    client: int
    wire: WireId


class StreamStalled(NamedTuple):
    """The client's stream carries nothing and never will while the client is owed messages: a
    200 that yields no data (a stall). Recorded when an open stream becomes dead (at admission
    or later, e.g. once a replay is drained on an instance that does not run the session), and
    for a 200 that closes at once with nothing (the MCP SDK's answer to an unknown cursor)."""

    client: int
    instance: int
    token: int
    admission: str             # how the stream was opened (model.state.Stream.admission)


class StreamClosed(NamedTuple):
    client: int
    instance: int
    reason: str   # "network", "idle_timeout", "instance_stop", "server_close", "client_restart",
    #               "session_evicted"
    frames: int


class ClientArrived(NamedTuple):
    client: int
    slot: int


class ClientDeparted(NamedTuple):
    client: int
    phase: str                 # the phase it left in ("failed": it gave up on an error)
    never_applied: Tuple[int, ...]  # own messages it never applied


class ClientFailed(NamedTuple):
    client: int
    status: int
    code: str


class GapAccepted(NamedTuple):
    """The client was told of a gap (409 replay_gap, or a 200 stream's leading gap event)."""

    client: int
    resume_from: Optional[WireId]
    told: Tuple[int, ...]      # own messages the gap covers: lost, with notice


class CursorPersisted(NamedTuple):
    client: int
    token: Optional[int]
    wire: Optional[WireId]


class ClientRestarted(NamedTuple):
    client: int
    token: Optional[int]
    wire: Optional[WireId]
    stale: bool = False        # the persisted cursor lags the live one it replaces


class CursorReplaced(NamedTuple):
    client: int
    donor: int
    wire: WireId


class InstanceChanged(NamedTuple):
    instance: int
    what: str               # "drain", "stop", "crash" or "start"
    incarnation: int
    lost_sessions: Tuple[int, ...]


class SessionEvicted(NamedTuple):
    token: int


class BufferCompacted(NamedTuple):
    instance: Optional[int]  # None: the shared buffer
    token: int
    dropped: WireId


class Recreated(NamedTuple):
    instance: int
    token: int
    generation: int
    work_start: int
