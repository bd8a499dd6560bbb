"""History events: the facts each transition records.

A history is a sequence of `(time, event)` pairs. A `client` field names a client by its
identity (`Client.ident`), which is also its index wherever clients never leave. Events state
facts (what was decided, what a client applied and whether it had applied it before);
`model.properties` turns them into violations. Engines add the time: a step number for
scripts, seconds for the DES.

Events are records (`model.record`): immutable values with named fields (`_fields`,
`_asdict()`). The client side's events are defined here, the server side's in
`model.server_events`; both are imported from here.
"""
from __future__ import annotations

from typing import Any, Final, Optional, Tuple

from .protocol import WireId
from .record import UNHASHED, Record
from .server_events import (
    BufferCompacted,
    Decided,
    Emitted,
    Initialized,
    InstanceChanged,
    RecordExpired,
    Recreated,
    SessionEvicted,
    TaskExpired,
    TaskPolled,
)
from .vocabulary import Via

__all__ = ["Applied", "BufferCompacted", "ClientArrived", "ClientDeparted", "ClientFailed",
           "ClientRestarted", "CursorPersisted", "CursorReplaced", "Decided", "Dropped", "Emitted",
           "GapAccepted", "Initialized", "InstanceChanged", "Primed", "RecordExpired", "Recreated",
           "SessionEvicted", "StreamClosed", "StreamStalled", "TaskExpired", "TaskPolled"]


class Applied(Record):
    __slots__ = ("client", "wire", "owner", "msg", "side_effect", "token", "generation", "via",
                 "first_token", "first_generation", "admission", "client_gen", "serving_gen",
                 "cursor_foreign", "holes")
    _fields = ("client", "wire", "owner", "msg", "side_effect", "token", "generation", "via",
               "first_token", "first_generation", "admission", "client_gen", "serving_gen",
               "cursor_foreign", "holes")
    client: Final[int]
    wire: Final[WireId]
    owner: Final[Optional[int]]  # client whose work the message is (ground truth; None once
                                 # its session was forgotten)
    msg: Final[int]
    side_effect: Final[bool]  # a non-idempotent call result: applying it twice repeats
    token: Final[int]  # session the event was emitted on
    generation: Final[int]  # generation it was emitted at
    via: Final[Via]  # how it reached the client (model/state.py)
    first_token: Final[Optional[int]]  # session of the first application, if applied before
    first_generation: Final[Optional[int]]
    admission: Final[str]  # how the stream was opened (model.state.Stream.admission)
    client_gen: Final[Optional[int]]  # generation of the cursor the stream was admitted with
    serving_gen: Final[Optional[int]]
    cursor_foreign: Final[bool]
    holes: Final[Tuple[int, ...]]  # own earlier messages skipped for good, never told of a gap

    def __init__(self, client: int, wire: WireId, owner: Optional[int], msg: int, side_effect: bool,
                 token: int, generation: int, via: Via, first_token: Optional[int],
                 first_generation: Optional[int], admission: str, client_gen: Optional[int],
                 serving_gen: Optional[int], cursor_foreign: bool, holes: Tuple[int, ...]) -> None:
        self.client = client
        self.wire = wire
        self.owner = owner
        self.msg = msg
        self.side_effect = side_effect
        self.token = token
        self.generation = generation
        self.via = via
        self.first_token = first_token
        self.first_generation = first_generation
        self.admission = admission
        self.client_gen = client_gen
        self.serving_gen = serving_gen
        self.cursor_foreign = cursor_foreign
        self.holes = holes
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.client, self.wire, self.owner, self.msg, self.side_effect, self.token,
                self.generation, self.via, self.first_token, self.first_generation, self.admission,
                self.client_gen, self.serving_gen, self.cursor_foreign, self.holes)

    @property
    def duplicate(self) -> bool:
        return self.first_token is not None


class Dropped(Record):
    """A deduping client dropped an event whose id it had already seen on the session."""

    __slots__ = ("client", "wire", "owner", "msg", "new")
    _fields = ("client", "wire", "owner", "msg", "new")
    client: Final[int]
    wire: Final[WireId]
    owner: Final[Optional[int]]
    msg: Final[int]
    new: Final[bool]  # the dropped message had never been applied (a reused id)

    def __init__(self, client: int, wire: WireId, owner: Optional[int], msg: int,
                 new: bool) -> None:
        self.client = client
        self.wire = wire
        self.owner = owner
        self.msg = msg
        self.new = new
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.client, self.wire, self.owner, self.msg, self.new)


class Primed(Record):
    """A priming event (an id, no data) reached the client, which takes it as its cursor."""

    __slots__ = ("client", "wire")
    _fields = ("client", "wire")
    client: Final[int]
    wire: Final[WireId]

    def __init__(self, client: int, wire: WireId) -> None:
        self.client = client
        self.wire = wire
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.client, self.wire)


class StreamStalled(Record):
    """The client's stream carries nothing and never will while the client is owed messages: a
    200 that yields no data (a stall). Recorded when an open stream becomes dead (at admission
    or later, e.g. once a replay is drained on an instance that does not run the session), and
    for a 200 that closes at once with nothing (the MCP SDK's answer to an unknown cursor)."""

    __slots__ = ("client", "instance", "token", "admission")
    _fields = ("client", "instance", "token", "admission")
    client: Final[int]
    instance: Final[int]
    token: Final[int]
    admission: Final[str]  # how the stream was opened (model.state.Stream.admission)

    def __init__(self, client: int, instance: int, token: int, admission: str) -> None:
        self.client = client
        self.instance = instance
        self.token = token
        self.admission = admission
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.client, self.instance, self.token, self.admission)


class StreamClosed(Record):
    __slots__ = ("client", "instance", "reason", "frames")
    _fields = ("client", "instance", "reason", "frames")
    client: Final[int]
    instance: Final[int]
    #: "network", "idle_timeout", "instance_stop", "server_close", "client_restart",
    #: "session_evicted"
    reason: Final[str]
    frames: Final[int]

    def __init__(self, client: int, instance: int, reason: str, frames: int) -> None:
        self.client = client
        self.instance = instance
        self.reason = reason
        self.frames = frames
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.client, self.instance, self.reason, self.frames)


class ClientArrived(Record):
    __slots__ = ("client", "slot")
    _fields = ("client", "slot")
    client: Final[int]
    slot: Final[int]

    def __init__(self, client: int, slot: int) -> None:
        self.client = client
        self.slot = slot
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.client, self.slot)


class ClientDeparted(Record):
    __slots__ = ("client", "phase", "never_applied")
    _fields = ("client", "phase", "never_applied")
    client: Final[int]
    phase: Final[str]  # the phase it left in ("failed": it gave up on an error)
    never_applied: Final[Tuple[int, ...]]  # own messages it never applied

    def __init__(self, client: int, phase: str, never_applied: Tuple[int, ...]) -> None:
        self.client = client
        self.phase = phase
        self.never_applied = never_applied
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.client, self.phase, self.never_applied)


class ClientFailed(Record):
    __slots__ = ("client", "status", "code")
    _fields = ("client", "status", "code")
    client: Final[int]
    status: Final[int]
    code: Final[str]

    def __init__(self, client: int, status: int, code: str) -> None:
        self.client = client
        self.status = status
        self.code = code
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.client, self.status, self.code)


class GapAccepted(Record):
    """The client was told of a gap (409 replay_gap, or a 200 stream's leading gap event)."""

    __slots__ = ("client", "resume_from", "told")
    _fields = ("client", "resume_from", "told")
    client: Final[int]
    resume_from: Final[Optional[WireId]]
    told: Final[Tuple[int, ...]]  # own messages the gap covers: lost, with notice

    def __init__(self, client: int, resume_from: Optional[WireId], told: Tuple[int, ...]) -> None:
        self.client = client
        self.resume_from = resume_from
        self.told = told
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.client, self.resume_from, self.told)


class CursorPersisted(Record):
    __slots__ = ("client", "token", "wire")
    _fields = ("client", "token", "wire")
    client: Final[int]
    token: Final[Optional[int]]
    wire: Final[Optional[WireId]]

    def __init__(self, client: int, token: Optional[int], wire: Optional[WireId]) -> None:
        self.client = client
        self.token = token
        self.wire = wire
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.client, self.token, self.wire)


class ClientRestarted(Record):
    __slots__ = ("client", "token", "wire", "stale")
    _fields = ("client", "token", "wire", "stale")
    client: Final[int]
    token: Final[Optional[int]]
    wire: Final[Optional[WireId]]
    stale: Final[bool]  # the persisted cursor lags the live one it replaces

    def __init__(self, client: int, token: Optional[int], wire: Optional[WireId],
                 stale: bool = False) -> None:
        self.client = client
        self.token = token
        self.wire = wire
        self.stale = stale
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.client, self.token, self.wire, self.stale)


class CursorReplaced(Record):
    __slots__ = ("client", "donor", "wire")
    _fields = ("client", "donor", "wire")
    client: Final[int]
    donor: Final[int]
    wire: Final[WireId]

    def __init__(self, client: int, donor: int, wire: WireId) -> None:
        self.client = client
        self.donor = donor
        self.wire = wire
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.client, self.donor, self.wire)
