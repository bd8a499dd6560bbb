"""Resumption-validation policies: pure functions `(ResumeRequest, ServerView) -> Decision`.

Each policy reads only the view. A user's own gate is any callable with the same signature;
`resolve_gate` accepts a policy name or such a callable, and `decide` runs either one, turning an
exception or a malformed return value into a `GateError` that names the gate.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Final, Optional, Tuple, Union

from .errors import GateError
from .protocol import Code, Decision, Effect, ResumeRequest, admit, check_decision, reject
from .record import UNHASHED, Record
from .view import (
    ABOVE_HWM,
    AT_FLOOR,
    BELOW_FLOOR,
    IDS_PER_PROCESS,
    IDS_PER_SESSION,
    IN_BUFFER,
    IN_RANGE,
    NO_BUFFER,
    NO_CURSOR,
    ServerView,
)

GateFunction = Callable[[ResumeRequest, ServerView], Decision]


def _replay(view: ServerView, reason: str) -> Decision:
    """Admit a replay after E. The effect names what the lookup really replays: another session's
    stream when the store found E there (an event-id keyed store follows the id)."""
    if view.cursor.elsewhere:
        return admit(Effect.FOREIGN, reason + "; E was found in another session's stream")
    return admit(Effect.REPLAY, reason)


def _by_range(view: ServerView, what: str) -> Decision:
    """The range check shared by `range` and `generation`: floor <= E <= hwm, compared with S's
    own buffer. Finding E in some other stream of an id-keyed store does not put it in S's
    range: the check is a position in S's stream, and the lookup is only how a replay is served."""
    c = view.cursor
    if c.position in (IN_BUFFER, AT_FLOOR, IN_RANGE):
        return _replay(view, f"{what}: E within [floor, hwm]")
    if c.position == ABOVE_HWM:
        return reject(Code.CURSOR_AHEAD, f"{what}: E above the high-water mark")
    floor = view.buffer.floor if view.buffer is not None else None
    return reject(Code.REPLAY_GAP, f"{what}: E not replayable ({c.position})", resume_from=floor)


def _liveness_then_new_stream(view: ServerView) -> Optional[Decision]:
    """The opening every checking policy shares: 404 if the registry does not hold S; a GET
    without Last-Event-ID opens a new stream. None: go on checking the cursor."""
    if not view.registry_has_session:
        return reject(Code.SESSION_NOT_FOUND, "session not in the registry")
    if view.cursor.position == NO_CURSOR:
        return admit(Effect.EMPTY, "no cursor: new stream")
    return None


def naive(request: ResumeRequest, view: ServerView) -> Decision:
    """Format-only validation (incident B's first failover): admits unknown sessions; no buffer
    -> 200 empty stream; a buffer without E -> replay from the head."""
    c = view.cursor
    if c.found or c.position == AT_FLOOR:
        return _replay(view, "cursor found")
    if c.position == NO_CURSOR or view.buffer is None or not view.buffer.wires:
        return admit(Effect.EMPTY, "no buffer or nothing retained: empty stream")
    return admit(Effect.FROM_HEAD, "cursor not in the buffer: replay from the head")


def range_only(request: ResumeRequest, view: ServerView) -> Decision:
    """Session found + floor <= E <= hwm (the reconnect path observed in incident A); ignores
    generation and provenance."""
    return _liveness_then_new_stream(view) or _by_range(view, "range")


def generation(request: ResumeRequest, view: ServerView) -> Decision:
    """The gate incident A called for: liveness, generation, range; no provenance check."""
    first = _liveness_then_new_stream(view)
    if first is not None:
        return first
    c = view.cursor
    if view.recreates:
        return reject(Code.GENERATION_MISMATCH, "session state recreated: E predates it")
    if c.generation is not None and c.generation != view.generation:
        return reject(Code.GENERATION_MISMATCH,
                      f"E from generation {c.generation}, session at {view.generation}")
    return _by_range(view, "generation ok")


def provenance(request: ResumeRequest, view: ServerView) -> Decision:
    """The gate incident B's write-up proposed (README, "Results: the incident matrix"):
    liveness, provenance, then a gap signal (200 + leading gap event); no generation check
    and no upper bound (a cursor above hwm is in effect clamped).
    Provenance as its store can tell it: E is S's if the id says so, or, for ids that name no
    issuer (counters), if S's own stream holds E (or just dropped it). Unlike `strict` it
    trusts that lookup, so a counter value another session also issued passes."""
    first = _liveness_then_new_stream(view)
    if first is not None:
        return first
    c = view.cursor
    if c.owner is not None and c.owner != view.session:
        return reject(Code.CURSOR_SESSION_MISMATCH, f"cursor belongs to session {c.owner}")
    if c.owner is None and (c.elsewhere or not (c.found or c.position == AT_FLOOR)):
        return reject(Code.CURSOR_SESSION_MISMATCH, "E is not in this session's stream")
    if c.position == BELOW_FLOOR:
        return admit(Effect.GAP, "E below the floor: leading gap event, replay from the floor")
    if c.position == ABOVE_HWM:
        return admit(Effect.CLAMPED, "E above hwm: nothing to replay, live from here")
    if c.position == NO_BUFFER:
        return admit(Effect.EMPTY, "no buffer here: live from here")
    return _replay(view, "provenance ok")


def strict(request: ResumeRequest, view: ServerView) -> Decision:
    """All four conditions in order: liveness, provenance, generation, reachability; it never
    guesses. A cursor whose issuer the id cannot prove (an opaque id no longer held, or a counter
    value that other sessions or generations also issue) is refused with 409
    cursor_unverifiable: admitting it could replay the wrong events. A request that would make
    this instance recreate S's state (a new generation, re-running its calls) is refused with
    409 generation_mismatch even without a cursor: a refusal never creates server state."""
    if not view.registry_has_session:
        return reject(Code.SESSION_NOT_FOUND, "session not in the registry")
    c = view.cursor
    if c.position == NO_CURSOR:
        if view.recreates:
            return reject(Code.GENERATION_MISMATCH, "serving S here recreates its state "
                                                    f"(generation {view.generation})")
        return admit(Effect.EMPTY, "no cursor: new stream")
    if c.owner is None:
        why = {IDS_PER_SESSION: "per-session counter ids are reused by every session and "
                                "generation",
               IDS_PER_PROCESS: "per-process counter ids are reused by other processes and "
                                "incarnations"}.get(view.ids, "E is not held here")
        return reject(Code.CURSOR_UNVERIFIABLE, f"cannot tell which session issued E ({why})")
    if c.owner != view.session:
        return reject(Code.CURSOR_SESSION_MISMATCH, f"cursor belongs to session {c.owner}")
    if view.recreates or c.generation != view.generation:
        return reject(Code.GENERATION_MISMATCH,
                      f"E from generation {c.generation}, session at {view.generation}"
                      + (" (recreated here)" if view.recreates else ""))
    floor = view.buffer.floor if view.buffer is not None else None
    if c.position in (IN_BUFFER, AT_FLOOR, IN_RANGE):
        return _replay(view, "all four conditions hold")
    if c.position == ABOVE_HWM:
        return reject(Code.CURSOR_AHEAD, "E above the high-water mark: never clamp")
    return reject(Code.REPLAY_GAP, f"E not replayable ({c.position}): resume after the floor",
                  resume_from=floor)


def sdk(request: ResumeRequest, view: ServerView) -> Decision:
    """The MCP Python SDK today: exact lookup in the per-process session table (404, no
    generation), no provenance check, the event store looked up by id alone, and an unknown or
    evicted cursor answered with 200 + empty stream + close (no gap signal)."""
    if not view.held_locally:
        return reject(Code.SESSION_NOT_FOUND, "session not in this process's table")
    c = view.cursor
    if c.position == NO_CURSOR:
        return admit(Effect.EMPTY, "no cursor: new stream")
    if c.found:
        return _replay(view, "event store found E")
    return admit(Effect.EMPTY_CLOSE, "event store does not know E: empty stream, then close")


def sdk_typescript(request: ResumeRequest, view: ServerView) -> Decision:
    """The MCP TypeScript SDK's transport with its example event store: the same lookups as the
    Python SDK, but a cursor the store does not know gets 200 and a stream held open under an
    empty stream id, attached to nothing: no event of S will ever arrive on it (seen in
    conformance and differential testing against @modelcontextprotocol/sdk 1.32)."""
    decision = sdk(request, view)
    if decision.effect is Effect.EMPTY_CLOSE:
        return admit(Effect.DETACHED, "example store does not know E: 200, held open on no "
                     "stream")
    return decision


POLICIES: Dict[str, GateFunction] = {
    "naive": naive,
    "range": range_only,
    "generation": generation,
    "provenance": provenance,
    "strict": strict,
    "sdk": sdk,
}


#: Gates of real implementations other than the compared policies: named like a policy
#: wherever one is accepted (scripts, the explorer, verification spaces, the conformance
#: harness), never part of the default comparison.
IMPLEMENTATIONS: Dict[str, GateFunction] = {
    "sdk-typescript": sdk_typescript,
}
#: every gate that has a name
NAMED_GATES: Dict[str, GateFunction] = {**POLICIES, **IMPLEMENTATIONS}


def _no_resumption(request: ResumeRequest, view: ServerView) -> Decision:
    """The gate of a stateless transport: it has no resumption, so nothing ever asks it."""
    raise ValueError("a stateless transport has no resumption for a gate to decide")


#: the transports without sessions (model.config.TRANSPORTS but "sessions"): each is a design
#: of its own, compared beside the gates of session resumption as a row of its own
STATELESS_ROWS = ("stateless", "stateless+idempotency", "tasks")


class Gate(Record):
    """A named gate: one of POLICIES or a user's callable."""

    __slots__ = ("name", "function")
    _fields = ("name", "function")
    name: Final[str]
    function: Final[GateFunction]

    def __init__(self, name: str, function: GateFunction) -> None:
        self.name = name
        self.function = function
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.name, self.function)


def unknown_policy(name: str) -> Optional[str]:
    """None when `name` names a policy, else the one line saying it does not, with the valid
    names: the one wording of this check wherever a policy is named (CLI, configs, specs)."""
    if name in NAMED_GATES:
        return None
    return f"unknown policy {name!r}; valid: {', '.join(NAMED_GATES)}"


def resolve_gate(policy: Union[str, GateFunction, Gate]) -> Gate:
    """A Gate for a policy name, a user callable or a Gate; unknown names raise ValueError
    listing the valid ones. A stateless transport's name gives the gate it runs with (one that
    is never asked: `no_resumption`)."""
    if isinstance(policy, Gate):
        return policy
    if isinstance(policy, str) and policy in STATELESS_ROWS:
        return no_resumption(policy)
    if isinstance(policy, str):
        problem = unknown_policy(policy)
        if problem is not None:
            raise ValueError(problem)
        return Gate(policy, NAMED_GATES[policy])
    if callable(policy):
        name = getattr(policy, "__qualname__", None) or repr(policy)
        module = getattr(policy, "__module__", None)
        return Gate(f"{module}:{name}" if module else name, policy)
    raise ValueError(f"a policy must be a name ({', '.join(NAMED_GATES)}) or a callable, "
                     f"got {type(policy).__name__}")


def decide(gate: Gate, request: ResumeRequest, view: ServerView) -> Decision:
    """Run a gate; an exception or a malformed result becomes a GateError naming the gate."""
    # A user's gate may return anything: called untyped, so that the compiled model does not
    # reject a malformed result before check_decision can name what is wrong with it.
    function: Any = gate.function
    try:
        decision = function(request, view)
    except Exception as exc:  # a user's gate may raise anything: report it, do not crash
        raise GateError(gate.name, f"raised {type(exc).__name__}: {exc}") from exc
    problem = check_decision(decision)
    if problem is not None:
        raise GateError(gate.name, problem)
    return decision


def no_resumption(transport: str) -> Gate:
    """The gate a stateless transport runs with, named after the transport (no Reconnect is
    ever enabled on it, so it is never asked)."""
    return Gate(transport, _no_resumption)
