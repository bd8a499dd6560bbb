"""History events of the server side: sessions created and recreated, messages emitted,
resumptions decided, instances changing, sessions evicted and buffers compacted.

Events are records (`model.record`): immutable values with named fields; `model.history`
describes what a history is and holds the client side's events.
"""
from __future__ import annotations

from typing import Any, Final, Optional, Tuple

from .protocol import WireId
from .record import UNHASHED, Record


class Initialized(Record):
    __slots__ = ("client", "instance", "token", "work_start", "reissue", "priming")
    _fields = ("client", "instance", "token", "work_start", "reissue", "priming")
    client: Final[int]
    instance: Final[int]
    token: Final[int]
    work_start: Final[int]  # first message of the work the new session runs
    reissue: Final[bool]  # the client had a session before: its unfinished calls are re-issued
    priming: Final[Optional[WireId]]  # id of the priming event that gave the client its cursor

    def __init__(self, client: int, instance: int, token: int, work_start: int, reissue: bool,
                 priming: Optional[WireId] = None) -> None:
        self.client = client
        self.instance = instance
        self.token = token
        self.work_start = work_start
        self.reissue = reissue
        self.priming = priming
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.client, self.instance, self.token, self.work_start, self.reissue, self.priming)


class Emitted(Record):
    __slots__ = ("instance", "token", "generation", "msg", "owner", "wire", "live_to", "dropped",
                 "result", "side_effect", "first_execution", "reexecution", "recorded")
    _fields = ("instance", "token", "generation", "msg", "owner", "wire", "live_to", "dropped",
               "result", "side_effect", "first_execution", "reexecution", "recorded")
    instance: Final[int]
    token: Final[int]
    generation: Final[int]
    msg: Final[int]
    owner: Final[int]  # client whose work the message is
    wire: Final[WireId]
    live_to: Final[Tuple[int, ...]]  # clients whose open stream carries it now
    dropped: Final[Optional[WireId]]  # id the buffer dropped to stay within capacity
    result: Final[bool]  # the message is a call's result: emitting it executes the call
    side_effect: Final[bool]  # ... and the call is non-idempotent
    #: (token, generation) that executed this call before, if any (ground truth): this is a
    #: re-execution
    first_execution: Final[Optional[Tuple[int, int]]]
    #: why a call executed before is executed again (ground truth; "" for a first execution):
    #: "recreated_generation" (a recreated generation re-runs it), "reissued_after_refusal"
    #: (the client re-initialized after a refusal), "reissued_after_break" (stateless: the
    #: client re-issued it after its response stream broke), "record_elsewhere" or
    #: "record_gone" (stateless+idempotency: its execution record is in another process, or
    #: expired or lost with its process)
    reexecution: Final[str]
    recorded: Final[bool]  # the result was sent from an execution record, unexecuted

    def __init__(self, instance: int, token: int, generation: int, msg: int, owner: int,
                 wire: WireId, live_to: Tuple[int, ...], dropped: Optional[WireId],
                 result: bool = False, side_effect: bool = False,
                 first_execution: Optional[Tuple[int, int]] = None, reexecution: str = "",
                 recorded: bool = False) -> None:
        self.instance = instance
        self.token = token
        self.generation = generation
        self.msg = msg
        self.owner = owner
        self.wire = wire
        self.live_to = live_to
        self.dropped = dropped
        self.result = result
        self.side_effect = side_effect
        self.first_execution = first_execution
        self.reexecution = reexecution
        self.recorded = recorded
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.instance, self.token, self.generation, self.msg, self.owner, self.wire,
                self.live_to, self.dropped, self.result, self.side_effect, self.first_execution,
                self.reexecution, self.recorded)


class Decided(Record):
    __slots__ = ("client", "instance", "token", "cursor", "gate", "status", "code", "effect",
                 "resume_from", "registry_has_session", "held_locally", "live_elsewhere",
                 "recreated", "replayed", "reason", "position", "cursor_foreign", "recreates")
    _fields = ("client", "instance", "token", "cursor", "gate", "status", "code", "effect",
               "resume_from", "registry_has_session", "held_locally", "live_elsewhere", "recreated",
               "replayed", "reason", "position", "cursor_foreign", "recreates")
    client: Final[int]
    instance: Final[int]
    token: Final[int]
    cursor: Final[Optional[WireId]]
    gate: Final[str]
    status: Final[int]
    code: Final[str]
    effect: Final[str]
    resume_from: Final[Optional[WireId]]
    registry_has_session: Final[bool]
    held_locally: Final[bool]
    live_elsewhere: Final[bool]  # the session is live in some registry or process (ground truth)
    recreated: Final[Optional[int]]  # generation created by this request, if any
    replayed: Final[int]  # events queued by the replay
    reason: Final[str]
    position: Final[str]  # where the cursor lay relative to S's buffer (model.view)
    cursor_foreign: Final[bool]  # ground truth: the cursor was issued on another session
    recreates: Final[bool]  # serving S here needs its state recreated (it was lost here)

    def __init__(self, client: int, instance: int, token: int, cursor: Optional[WireId], gate: str,
                 status: int, code: str, effect: str, resume_from: Optional[WireId],
                 registry_has_session: bool, held_locally: bool, live_elsewhere: bool,
                 recreated: Optional[int], replayed: int, reason: str, position: str = "",
                 cursor_foreign: bool = False, recreates: bool = False) -> None:
        self.client = client
        self.instance = instance
        self.token = token
        self.cursor = cursor
        self.gate = gate
        self.status = status
        self.code = code
        self.effect = effect
        self.resume_from = resume_from
        self.registry_has_session = registry_has_session
        self.held_locally = held_locally
        self.live_elsewhere = live_elsewhere
        self.recreated = recreated
        self.replayed = replayed
        self.reason = reason
        self.position = position
        self.cursor_foreign = cursor_foreign
        self.recreates = recreates
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.client, self.instance, self.token, self.cursor, self.gate, self.status,
                self.code, self.effect, self.resume_from, self.registry_has_session,
                self.held_locally, self.live_elsewhere, self.recreated, self.replayed, self.reason,
                self.position, self.cursor_foreign, self.recreates)


class InstanceChanged(Record):
    __slots__ = ("instance", "what", "incarnation", "lost_sessions")
    _fields = ("instance", "what", "incarnation", "lost_sessions")
    instance: Final[int]
    what: Final[str]  # "drain", "stop", "crash" or "start"
    incarnation: Final[int]
    lost_sessions: Final[Tuple[int, ...]]

    def __init__(self, instance: int, what: str, incarnation: int,
                 lost_sessions: Tuple[int, ...]) -> None:
        self.instance = instance
        self.what = what
        self.incarnation = incarnation
        self.lost_sessions = lost_sessions
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.instance, self.what, self.incarnation, self.lost_sessions)


class SessionEvicted(Record):
    __slots__ = ("token",)
    _fields = ("token",)
    token: Final[int]

    def __init__(self, token: int) -> None:
        self.token = token
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.token,)


class BufferCompacted(Record):
    __slots__ = ("instance", "token", "dropped")
    _fields = ("instance", "token", "dropped")
    instance: Final[Optional[int]]  # None: the shared buffer
    token: Final[int]
    dropped: Final[WireId]

    def __init__(self, instance: Optional[int], token: int, dropped: WireId) -> None:
        self.instance = instance
        self.token = token
        self.dropped = dropped
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.instance, self.token, self.dropped)


class Recreated(Record):
    __slots__ = ("instance", "token", "generation", "work_start")
    _fields = ("instance", "token", "generation", "work_start")
    instance: Final[int]
    token: Final[int]
    generation: Final[int]
    work_start: Final[int]

    def __init__(self, instance: int, token: int, generation: int, work_start: int) -> None:
        self.instance = instance
        self.token = token
        self.generation = generation
        self.work_start = work_start
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.instance, self.token, self.generation, self.work_start)


class RecordExpired(Record):
    """An execution record (stateless+idempotency) reached its TTL."""

    __slots__ = ("instance", "client", "msg")
    _fields = ("instance", "client", "msg")
    instance: Final[Optional[int]]  # None: the shared record store
    client: Final[int]
    msg: Final[int]  # the call's result message

    def __init__(self, instance: Optional[int], client: int, msg: int) -> None:
        self.instance = instance
        self.client = client
        self.msg = msg
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.instance, self.client, self.msg)


class TaskPolled(Record):
    """A client polled its task (tasks transport) at an instance: what the poll found there.
    `outcome`: "unknown" (the instance sees no record of the task: the client re-issues its
    unfinished calls), "progress" (new messages: `delivered` of them), "working" (nothing new,
    a process still runs the task) or "orphaned" (nothing new, and no process runs the task:
    the record says working and will until it expires)."""

    __slots__ = ("client", "instance", "token", "outcome", "delivered")
    _fields = ("client", "instance", "token", "outcome", "delivered")
    client: Final[int]
    instance: Final[int]
    token: Final[int]  # the task id
    outcome: Final[str]
    delivered: Final[int]

    def __init__(self, client: int, instance: int, token: int, outcome: str,
                 delivered: int) -> None:
        self.client = client
        self.instance = instance
        self.token = token
        self.outcome = outcome
        self.delivered = delivered
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.client, self.instance, self.token, self.outcome, self.delivered)


class TaskExpired(Record):
    """A task record (tasks transport) reached its TTL and is gone."""

    __slots__ = ("instance", "token")
    _fields = ("instance", "token")
    instance: Final[Optional[int]]  # None: the shared record store
    token: Final[int]  # the task id

    def __init__(self, instance: Optional[int], token: int) -> None:
        self.instance = instance
        self.token = token
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.instance, self.token)
