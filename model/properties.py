"""The property registry: every property the tool judges, declared once.

Each `Property` has a name, a kind and a check; the monitor (`model.monitor`), the explorer, the
DES, the verification matrix, the CLI and the report iterate `PROPERTIES` and never list
properties by hand. Kinds:

  safety     a bad thing that one transition shows (a history event): counted per event, with a
             cause. `judged` ones are held against a policy; `any_duplicate` is a diagnostic
             (at-least-once repeats of any cause: what client dedupe is for).
  liveness   a client waits forever: a state predicate the explorer checks on the state graph
             (bottom strongly connected components under fairness of the system's own progress).
  sometimes  a situation a meaningful scope must reach; one that a scope never reaches leaves
             the verdicts silent about it (the scope is vacuous there).
  cost       what safety costs: refusals, re-initializations, abandoned sessions, re-executed
             calls. Counted, never a violation.

Duplicate deliveries are attributed to a cause. Server-caused (judged): `cross_generation`
(replayed or re-run across a recreated generation), `restart_from_head` (cursor ignored),
`foreign_cursor` (a cursor that names no event of S was admitted). Client-caused, not judged:
`stale_cursor` (a lagging cursor within one generation: at-least-once by design). Recovery,
not judged but a cost: `reissued_after_refusal` (the server refused a resumption, the client
re-initialized and re-issued its unfinished call, whose progress it had already applied).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Final, List, Optional, Tuple

from .config import SystemConfig
from .history import (
    Applied,
    BufferCompacted,
    ClientFailed,
    ClientRestarted,
    Decided,
    Dropped,
    Emitted,
    GapAccepted,
    Initialized,
    InstanceChanged,
    StreamStalled,
    TaskPolled,
)
from .hits import EventCheck, Finding, Hit
from .resume import waiting_cause
from .stateless import REQUEST_ADMISSION
from .switches import SWITCHES
from .tasks import POLL_ADMISSION
from .view import BELOW_FLOOR, NO_CURSOR

SAFETY, LIVENESS, SOMETIMES, COST = "safety", "liveness", "sometimes", "cost"
KINDS = (SAFETY, LIVENESS, SOMETIMES, COST)

SERVER_CAUSES = ("cross_generation", "restart_from_head", "foreign_cursor")
CLIENT_CAUSES = ("stale_cursor",)
RECOVERY_CAUSES = ("reissued_after_refusal", "reissued_after_break", "reissued_after_lost_task")
#: why a call is executed again (`Emitted.reexecution`), and the causes held against a design:
#: a recreated generation re-runs a call nobody asked for; on a stateless transport the re-issue
#: after a break is the transport's only recovery, so a call executed twice by it is the
#: design's doing, and with idempotency keys so is a record the server cannot see. A re-issue
#: after a refusal (sessions) is the cost of the refusal, counted beside the gate's verdicts
#: (`reexecuted_call`), not against it.
REEXECUTION_CAUSES = ("recreated_generation", "reissued_after_refusal", "reissued_after_break",
                      "record_elsewhere", "record_gone")
JUDGED_REEXECUTIONS = ("recreated_generation", "reissued_after_break", "record_elsewhere",
                       "record_gone")


def _always(config: SystemConfig) -> bool:
    return True


def _sessions(config: SystemConfig) -> bool:
    """The situation needs sessions (a resumption, a session's buffer or cursor)."""
    return config.transport == "sessions"


def _tasks(config: SystemConfig) -> bool:
    """The situation needs tasks (a poll of a task record)."""
    return config.tasks


@dataclass(frozen=True)
class Property:
    """One property. `reads` are the event types `check` looks at (safety, sometimes, cost);
    `waiting` is the liveness predicate (the cause a client waits for, or None); `applies` says
    whether a deployment can reach the situation at all (sometimes checks)."""

    name: str
    kind: str
    label: str
    summary: str
    judged: bool = False
    reads: Tuple[type, ...] = ()
    check: Optional[Callable[[Any], Optional[Hit]]] = None
    waiting: Optional[Callable[..., Optional[str]]] = None
    applies: Callable[[SystemConfig], bool] = _always


def duplicate_cause(event: Applied) -> str:
    """Why a client got a message it had already applied."""
    if event.via == "head":
        return "restart_from_head"
    if event.cursor_foreign:
        return "foreign_cursor"
    if event.first_token != event.token:
        if event.admission == POLL_ADMISSION:
            return "reissued_after_lost_task"
        return "reissued_after_break" if event.admission == REQUEST_ADMISSION \
            else "reissued_after_refusal"
    if event.first_generation != event.generation or (
            event.client_gen is not None and event.serving_gen != event.client_gen):
        return "cross_generation"
    return "stale_cursor"


def _own_duplicate(e: Applied) -> Optional[str]:
    return duplicate_cause(e) if e.duplicate and e.owner == e.client else None


def _dup_delivery(e: Applied) -> Optional[Hit]:
    cause = _own_duplicate(e)
    return Hit(1, cause, f"m{e.msg} applied again ({cause})") if cause in SERVER_CAUSES else None


def _dup_side_effect(e: Applied) -> Optional[Hit]:
    return _dup_delivery(e) if e.side_effect else None


def _silent_loss(e: Applied) -> Optional[Hit]:
    if e.owner != e.client or not e.holes:
        return None
    skipped = ", ".join(f"m{m}" for m in e.holes)
    return Hit(len(e.holes), e.admission, f"{skipped} skipped unannounced "
                                          f"(stream opened: {e.admission})")


def _cross_session(e: Applied) -> Optional[Hit]:
    if e.owner == e.client:
        return None
    cause = "shared_stream" if e.via == "shared" else "foreign_stream"
    return Hit(1, cause, f"a message of c{e.owner} (session S{e.token}, {cause})")


def _stall(e: StreamStalled) -> Hit:
    return Hit(1, e.admission, f"admitted ({e.admission}), but no data can ever arrive")


def _needless_reinit(e: Decided) -> Optional[Hit]:
    if e.status == 404 and e.held_locally:
        return Hit(1, e.code, "this process holds the session live")
    return None


def _execution_cause(e: Emitted) -> str:
    assert e.first_execution is not None    # asked only of a call executed before
    return e.reexecution


def _duplicate_execution(e: Emitted) -> Optional[Hit]:
    first = e.first_execution
    if not e.side_effect or first is None or e.reexecution not in JUDGED_REEXECUTIONS:
        return None
    if e.reexecution == "recreated_generation":
        return Hit(1, e.reexecution,
                   f"m{e.msg}'s call executed again by generation {e.generation} (first by "
                   f"S{first[0]} generation {first[1]})")
    return Hit(1, e.reexecution, f"m{e.msg}'s call executed again by request R{e.token} "
                                 f"(first by R{first[0]}; {e.reexecution})")


def _any_duplicate(e: Applied) -> Optional[Hit]:
    cause = _own_duplicate(e)
    return Hit(1, cause, f"m{e.msg} applied again ({cause})") if cause else None


def _situation(name: str, summary: str, kind: Any, predicate, applies=_always) -> Property:
    reads = kind if isinstance(kind, tuple) else (kind,)
    return Property(name, SOMETIMES, name, summary, reads=reads,
                    check=EventCheck(predicate, None, name), applies=applies)


def _cost(name: str, label: str, summary: str, kind: type, predicate, cause) -> Property:
    return Property(name, COST, label, summary, reads=(kind,),
                    check=EventCheck(predicate, cause, name))


PROPERTIES: Tuple[Property, ...] = (
    Property("duplicate_delivery", SAFETY, "DUP", "a client applies one of its messages again, "
             "for a server-caused reason", True, (Applied,), _dup_delivery),
    Property("duplicate_side_effect", SAFETY, "SIDE", "... and the message is a call's "
             "non-idempotent result", True, (Applied,), _dup_side_effect),
    Property("silent_loss", SAFETY, "LOSS", "a client skips one of its messages for good without "
             "having been told of a gap", True, (Applied,), _silent_loss),
    Property("cross_session_delivery", SAFETY, "XSESS", "a client applies another session's "
             "message", True, (Applied,), _cross_session),
    Property("stall", SAFETY, "STALL", "a 200 stream on which no data can ever arrive while the "
             "client is owed messages (one episode until the client progresses)", True,
             (StreamStalled,), _stall),
    Property("needless_reinit", SAFETY, "REINIT", "a 404 from an instance whose own process holds "
             "the session live", True, (Decided,), _needless_reinit),
    Property("duplicate_execution", SAFETY, "EXEC", "the servers execute a non-idempotent call "
             "again: a recreated generation re-runs it, or (stateless) a re-issue after a break "
             "executes it again because no execution record is seen", True,
             (Emitted,), _duplicate_execution),
    Property("any_duplicate", SAFETY, "ANYDUP", "a client applies one of its messages again, for "
             "any reason (diagnostic: what client dedupe is for)", False, (Applied,),
             _any_duplicate),
    Property("stall_liveness", LIVENESS, "WAIT", "a client can wait forever for messages it was "
             "not told it lost, on a run where the system's own progress (delivery, emission, "
             "retries, instance starts) never stops and no further fault comes", True,
             waiting=waiting_cause),
    _situation("resumption", "a resumption request is decided", Decided, lambda e: True,
               applies=_sessions),
    _situation("admitted_resumption", "a resumption with a cursor is admitted (200)", Decided,
               lambda e: e.status == 200 and e.position != NO_CURSOR, applies=_sessions),
    _situation("restart", "an instance stops or crashes", InstanceChanged,
               lambda e: e.what in ("stop", "crash")),
    _situation("lost_session_state", "a resumption reaches an instance that would have to "
               "recreate the session as a new generation (its state was lost)", Decided,
               lambda e: e.recreates, applies=lambda c: _sessions(c) and c.store == "shared"),
    _situation("truncated_buffer", "a replay buffer drops an event", (BufferCompacted, Emitted),
               lambda e: type(e) is BufferCompacted or e.dropped is not None, applies=_sessions),
    _situation("gap_resumption", "a resumption presents a cursor below the floor", Decided,
               lambda e: e.position == BELOW_FLOOR,
               applies=lambda c: _sessions(c) and c.event_ids != "uuid"),   # a uuid: no order
    _situation("stale_client_restart", "a client restarts with a stale persisted cursor",
               ClientRestarted, lambda e: e.stale, applies=_sessions),
    _situation("foreign_cursor_presented", "a resumption presents another session's cursor",
               Decided, lambda e: e.cursor_foreign,
               applies=lambda c: _sessions(c) and c.clients >= 2),
    _situation("task_not_found", "a poll reaches an instance that sees no record of the task "
               "(the client re-issues its calls)", TaskPolled, lambda e: e.outcome == "unknown",
               applies=_tasks),
    _situation("orphaned_task", "a poll finds a task that no process runs any more, recorded as "
               "working", TaskPolled, lambda e: e.outcome == "orphaned",
               applies=lambda c: _tasks(c) and c.execution_record == "shared"),
    _cost("refusal", "refused", "a resumption answered with a non-200 status", Decided,
          lambda e: e.status != 200, lambda e: e.code),
    _cost("reinit", "re-inits", "a client re-initializes (a new session for unfinished calls)",
          Initialized, lambda e: e.reissue, lambda e: "reinit"),
    _cost("routing_reinit", "routing", "a 404 for a session live elsewhere but not here (an "
          "architecture cost)", Decided,
          lambda e: e.status == 404 and not e.held_locally and e.live_elsewhere,
          lambda e: "routing"),
    _cost("abandoned", "abandoned", "a client gives up on an error (its remaining calls are "
          "abandoned)", ClientFailed, lambda e: True, lambda e: e.code),
    _cost("reexecuted_call", "re-executed", "the servers execute a call again (any cause)",
          Emitted, lambda e: e.result and e.first_execution is not None, _execution_cause),
    _cost("reissue_redelivery", "re-delivered", "a re-issued call delivers progress the client "
          "had already applied", Applied,
          lambda e: _own_duplicate(e) in RECOVERY_CAUSES, _own_duplicate),
)

BY_NAME: Dict[str, Property] = {p.name: p for p in PROPERTIES}
#: short labels for tables (DUP, SIDE, ...), one per property
LABELS: Dict[str, str] = {p.name: p.label for p in PROPERTIES}


def legend(names) -> str:
    """"DUP = duplicate_delivery, ..." for the given properties."""
    return ", ".join(f"{LABELS[n]} = {n}" for n in names)


def named(kind: str, judged: Optional[bool] = None) -> Tuple[str, ...]:
    """Names of the properties of one kind (optionally only the judged ones), in order."""
    return tuple(p.name for p in PROPERTIES if p.kind == kind
                 and (judged is None or p.judged == judged))


#: the judged safety properties: what a policy is held to in every engine's counts
VIOLATIONS = named(SAFETY, judged=True)
SOMETIMES_CHECKS = named(SOMETIMES)
COSTS = named(COST)
#: what the explorer gives a verdict on: every safety property and the liveness check
VERDICT_PROPERTIES = named(SAFETY) + named(LIVENESS)

#: Final: compiled, read from a C static, not looked up in the module's dict at every event
_BY_EVENT: Final[Dict[type, List[Property]]] = {}
for _p in PROPERTIES:
    for _kind in _p.reads:
        _BY_EVENT.setdefault(_kind, []).append(_p)


def checks_for(kind: type) -> List[Property]:
    """The properties that read events of this type."""
    return _BY_EVENT.get(kind, [])


#: `quiet_events_skipped`: the events `quiet` clears skip every check (the fast path), else
#: every check reads every event of its kinds (the definition; tests compare the two, and hold
#: `quiet` against every property's check): `model.switches`
_SWITCHES: Final = SWITCHES


def quiet(event) -> bool:
    """No property's check can hit this event: a client applies its own message for the first
    time with nothing skipped, or a server emits without dropping an id from its buffer and
    without executing a call a second time. Every check that reads Applied needs a duplicate,
    a skipped message or another client's message, and every check that reads Emitted a
    dropped id or an earlier execution; most events of a run are these quiet ones."""
    if isinstance(event, Applied):
        return event.first_token is None and event.owner == event.client and not event.holes
    if isinstance(event, Emitted):
        return event.first_execution is None and event.dropped is None
    return False


def hits_of(event) -> List[Tuple[Property, Hit]]:
    """Every property (of any kind) this one event shows, with what it saw."""
    out: List[Tuple[Property, Hit]] = []
    add_hits(event, out)
    return out


def add_hits(event, out: List[Tuple[Property, Hit]]) -> None:
    """Append `hits_of(event)` to `out` (the explorer gathers a transition's hits in one list,
    with no list made per event)."""
    if _SWITCHES.quiet_events_skipped and quiet(event):
        return
    props = _BY_EVENT.get(type(event))
    if props is None:
        return
    for prop in props:      # (a list: compiled, iterated natively)
        check = prop.check
        assert check is not None   # every property that reads events checks them
        hit = check.run(event) if isinstance(check, EventCheck) else check(event)
        if hit is not None:
            out.append((prop, hit))


def findings_of(event, hits: Optional[List[Tuple[Property, Hit]]] = None) -> List[Finding]:
    """The safety findings of one event on its own (stateless), and notes for narratives; the
    explorer checks every transition with this, `PropertyMonitor` adds the bookkeeping.
    `hits` may pass `hits_of(event)` when the caller has it already."""
    found: List[Finding] = []
    for prop, hit in (hits_of(event) if hits is None else hits):
        if prop.kind != SAFETY:
            continue
        if prop.judged:
            found.append(Finding(prop.name, hit.count, hit.detail, hit.cause))
        elif hit.cause in CLIENT_CAUSES:
            found.append(Finding("note", 0, f"duplicate, client-caused ({hit.cause})"))
        elif hit.cause in RECOVERY_CAUSES:
            found.append(Finding("note", 0, f"re-issued call: progress applied again "
                                            f"({hit.cause}; a cost, not a violation)"))
    if type(event) is Decided and event.status == 404 and not event.held_locally \
            and event.live_elsewhere:
        found.append(Finding("note", 0, "routing re-init: the session is live elsewhere, "
                                        "not here"))
    if type(event) is Emitted and event.first_execution is not None and not found:
        found.append(Finding("note", 0, f"call re-executed ({_execution_cause(event)})"))
    if type(event) is GapAccepted and event.told:
        lost = ", ".join(f"m{m}" for m in event.told)
        found.append(Finding("note", 0, f"gap told: {lost} lost with notice"))
    if type(event) is Dropped and event.new:
        found.append(Finding("note", 0, "a new message dropped: its id was reused"))
    return found
