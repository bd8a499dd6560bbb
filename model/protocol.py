"""Protocol types of a resumption attempt.

A resumption is `GET` + `Mcp-Session-Id: S` + `Last-Event-ID: E`. A gate (policy) maps the
request and what the deciding instance can see (`model.view.ServerView`) to a `Decision`: an HTTP
status, a structured error code and what the stream will do.

Wire event ids are plain hashable values whose shape depends on the event-id scheme
(`model.event_ids`): an int for counters, `(token, generation, seq)` for tagged ids and
`("uuid", n)` for opaque ids. The wire never carries the ground-truth identity of a message.
"""
from __future__ import annotations

from typing import Any, Final, Optional, Tuple, Union

from .codes import Code, Effect
from .record import UNHASHED, Record

# The members the model reads on every resumption, as module constants (the same objects, so
# `is` compares them as before): compiled, `Effect.GAP` is a call into the Enum metaclass's
# `__getattr__` hook, a constant is one load.
CODE_OK: Final = Code.OK
CODE_REPLAY_GAP: Final = Code.REPLAY_GAP
EFFECT_REJECTED: Final = Effect.REJECTED
EFFECT_REPLAY: Final = Effect.REPLAY
EFFECT_EMPTY: Final = Effect.EMPTY
EFFECT_EMPTY_CLOSE: Final = Effect.EMPTY_CLOSE
EFFECT_FROM_HEAD: Final = Effect.FROM_HEAD
EFFECT_CLAMPED: Final = Effect.CLAMPED
EFFECT_GAP: Final = Effect.GAP
EFFECT_FOREIGN: Final = Effect.FOREIGN
EFFECT_DETACHED: Final = Effect.DETACHED

#: an event id on the wire: a counter value, (session, generation, seq) when tagged, or
#: ("uuid", serial) for an opaque unique id (model.event_ids issues them), or a real server's
#: string id (the guard in front of an MCP SDK server decides on those)
WireId = Union[int, str, Tuple[Union[int, str], ...]]


#: The HTTP status each code is answered with unless a gate says otherwise.
DEFAULT_STATUS = {
    Code.OK: 200,
    Code.SESSION_NOT_FOUND: 404,
    Code.CURSOR_SESSION_MISMATCH: 400,
    Code.CURSOR_UNVERIFIABLE: 409,
    Code.GENERATION_MISMATCH: 409,
    Code.REPLAY_GAP: 409,
    Code.CURSOR_AHEAD: 409,
}


class ResumeRequest(Record):
    """A resumption request as it arrives at an instance: only what is on the wire."""

    __slots__ = ("session", "last_event_id")
    _fields = ("session", "last_event_id")
    session: Final[int]  # Mcp-Session-Id (tokens are ints in the model)
    last_event_id: Final[Optional[WireId]]  # Last-Event-ID, or None for a GET without a cursor

    def __init__(self, session: int, last_event_id: Optional[WireId]) -> None:
        self.session = session
        self.last_event_id = last_event_id
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.session, self.last_event_id)


class Decision(Record):
    """A gate's answer. Invariant: status 200 iff code is OK iff effect is not REJECTED."""

    __slots__ = ("status", "code", "effect", "resume_from", "reason")
    _fields = ("status", "code", "effect", "resume_from", "reason")
    status: Final[int]
    code: Final[Code]
    effect: Final[Effect]
    resume_from: Final[Optional[WireId]]  # for REPLAY_GAP: the earliest cursor to resume after
    reason: Final[str]

    def __init__(self, status: int, code: Code, effect: Effect,
                 resume_from: Optional[WireId] = None, reason: str = "") -> None:
        self.status = status
        self.code = code
        self.effect = effect
        self.resume_from = resume_from
        self.reason = reason
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.status, self.code, self.effect, self.resume_from, self.reason)

    @property
    def admitted(self) -> bool:
        return self.status == 200

    def consequence(self) -> Tuple[int, Code, Effect, Optional[WireId]]:
        """All a transition does with this decision depends on: everything but `reason`, which
        only the Decided event reports (no property reads it). Two decisions with the same
        consequence lead to the same state and the same property hits."""
        return (self.status, self.code, self.effect, self.resume_from)


def admit(effect: Effect, reason: str = "") -> Decision:
    """A 200 answer with the given stream effect."""
    if effect is EFFECT_REJECTED:
        raise ValueError("an admitted stream needs an effect other than REJECTED")
    return Decision(200, CODE_OK, effect, None, reason)


def reject(code: Code, reason: str = "", resume_from: Optional[WireId] = None,
           status: Optional[int] = None) -> Decision:
    """A non-200 answer with a structured code (status defaults per DEFAULT_STATUS)."""
    if code is CODE_OK:
        raise ValueError("a rejection needs an error code other than OK")
    return Decision(DEFAULT_STATUS[code] if status is None else status, code,
                    EFFECT_REJECTED, resume_from, reason)


def check_decision(value: object) -> Optional[str]:
    """Return what is wrong with a gate's return value, or None if it is a valid Decision."""
    if not isinstance(value, Decision):
        return f"returned {type(value).__name__}, expected model.Decision"
    if not isinstance(value.code, Code) or not isinstance(value.effect, Effect):
        return "Decision.code must be a model.Code and Decision.effect a model.Effect"
    if not isinstance(value.status, int) or not 100 <= value.status <= 599:
        return f"Decision.status {value.status!r} is not an HTTP status"
    admitted = value.status == 200
    if admitted != (value.code is CODE_OK) or admitted != (value.effect is not EFFECT_REJECTED):
        return ("Decision must have status 200, code OK and a stream effect together, "
                f"got status={value.status}, code={value.code.value}, effect={value.effect.value}")
    return None
