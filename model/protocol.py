"""Protocol types of a resumption attempt.

A resumption is `GET` + `Mcp-Session-Id: S` + `Last-Event-ID: E`. A gate (policy) maps the
request and what the deciding instance can see (`model.view.ServerView`) to a `Decision`: an HTTP
status, a structured error code and what the stream will do.

Wire event ids are plain hashable values whose shape depends on the event-id scheme
(`model.event_ids`): an int for counters, `(token, generation, seq)` for tagged ids and
`("uuid", n)` for opaque ids. The wire never carries the ground-truth identity of a message.
"""
from __future__ import annotations

from enum import Enum
from typing import NamedTuple, Optional, Tuple, Union

#: an event id on the wire: a counter value, (session, generation, seq) when tagged, or
#: ("uuid", serial) for an opaque unique id (model.event_ids issues them), or a real server's
#: string id (the guard in front of an MCP SDK server decides on those)
WireId = Union[int, str, Tuple[Union[int, str], ...]]


class Code(str, Enum):
    """Structured error codes carried in a decision's body."""

    OK = "ok"
    SESSION_NOT_FOUND = "session_not_found"          # liveness failed -> 404, re-initialize
    CURSOR_SESSION_MISMATCH = "cursor_session_mismatch"  # provenance failed -> 400, client bug
    CURSOR_UNVERIFIABLE = "cursor_unverifiable"      # provenance cannot be established -> 409
    GENERATION_MISMATCH = "generation_mismatch"      # session recreated since E -> 409
    REPLAY_GAP = "replay_gap"                        # E below the replay floor -> 409 + earliest
    CURSOR_AHEAD = "cursor_ahead"                    # E above the high-water mark -> 409

    def __str__(self) -> str:  # pragma: no cover - cosmetic
        return self.value


class Effect(str, Enum):
    """What an admitted (200) stream does; `REJECTED` for any non-200 answer."""

    REPLAY = "replay"            # replay (E, hwm] of S's stream, then live
    EMPTY = "empty"              # nothing to replay; wait for live events
    EMPTY_CLOSE = "empty_close"  # 200, no events, then the server closes (MCP Python SDK)
    FROM_HEAD = "from_head"      # replay the whole retained buffer, ignoring E
    CLAMPED = "clamped"          # E treated as the high-water mark: nothing replayed, then live
    GAP = "gap"                  # leading gap event naming the floor, then replay from the floor
    FOREIGN = "foreign"          # replay after E in the stream of another session
    DETACHED = "detached"        # 200, nothing replayed, held open on no stream of S: nothing
    #                              ever arrives (the TypeScript SDK, for a cursor its example
    #                              store does not know)
    REJECTED = "rejected"

    def __str__(self) -> str:  # pragma: no cover - cosmetic
        return self.value


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


class ResumeRequest(NamedTuple):
    """A resumption request as it arrives at an instance: only what is on the wire."""

    session: int               # Mcp-Session-Id (tokens are ints in the model)
    last_event_id: Optional[WireId]  # Last-Event-ID, or None for a GET without a cursor


class Decision(NamedTuple):
    """A gate's answer. Invariant: status 200 iff code is OK iff effect is not REJECTED."""

    status: int
    code: Code
    effect: Effect
    resume_from: Optional[WireId] = None  # for REPLAY_GAP: the earliest cursor to resume after
    reason: str = ""

    @property
    def admitted(self) -> bool:
        return self.status == 200


def admit(effect: Effect, reason: str = "") -> Decision:
    """A 200 answer with the given stream effect."""
    if effect is Effect.REJECTED:
        raise ValueError("an admitted stream needs an effect other than REJECTED")
    return Decision(200, Code.OK, effect, None, reason)


def reject(code: Code, reason: str = "", resume_from: Optional[WireId] = None,
           status: Optional[int] = None) -> Decision:
    """A non-200 answer with a structured code (status defaults per DEFAULT_STATUS)."""
    if code is Code.OK:
        raise ValueError("a rejection needs an error code other than OK")
    return Decision(DEFAULT_STATUS[code] if status is None else status, code,
                    Effect.REJECTED, resume_from, reason)


def check_decision(value: object) -> Optional[str]:
    """Return what is wrong with a gate's return value, or None if it is a valid Decision."""
    if not isinstance(value, Decision):
        return f"returned {type(value).__name__}, expected model.Decision"
    if not isinstance(value.code, Code) or not isinstance(value.effect, Effect):
        return "Decision.code must be a model.Code and Decision.effect a model.Effect"
    if not isinstance(value.status, int) or not 100 <= value.status <= 599:
        return f"Decision.status {value.status!r} is not an HTTP status"
    admitted = value.status == 200
    if admitted != (value.code is Code.OK) or admitted != (value.effect is not Effect.REJECTED):
        return ("Decision must have status 200, code OK and a stream effect together, "
                f"got status={value.status}, code={value.code.value}, effect={value.effect.value}")
    return None
