"""Human-readable narratives: each step's action and what changed, with violations marked.

Verdicts come from `model.properties` (the same functions that count them), so the narrative
and the counts cannot disagree.
"""
from __future__ import annotations

from typing import List

from model import PropertyMonitor
from model import history as h
from model.actions import ACTIONS
from model.event_ids import render as wid
from model.record import fields_of

from ..script import ScenarioRun


def _msg(owner: int, msg: int, result: bool) -> str:
    return f"c{owner}:m{msg}({'result' if result else 'progress'})"


def describe_action(action) -> str:
    name = type(action).__name__
    args = []
    for f, value in fields_of(action):
        prefix = {"client": "c", "donor": "c", "instance": "i", "token": "S"}.get(f, "")
        args.append("shared" if value is None and f == "instance" else f"{prefix}{value}")
    return f"{name}({', '.join(args)})"


def parse_action(text: str):
    """The action `describe_action` rendered as `text` (e.g. "Reconnect(c0, i1)",
    "Compact(shared, S1)"); ValueError names what is wrong."""
    name, _, rest = text.strip().partition("(")
    kind = ACTIONS.get(name)
    if kind is None or not rest.endswith(")"):
        raise ValueError(f"not an action: {text!r}")
    args = [a.strip() for a in rest[:-1].split(",") if a.strip()]
    names = kind._fields
    if len(args) != len(names):
        raise ValueError(f"{name} takes {len(names)} argument(s), got {text!r}")
    values = []
    for arg in args:
        if arg == "shared":
            values.append(None)
        else:
            digits = arg.lstrip("ciS")
            if not digits.isdigit():
                raise ValueError(f"bad argument {arg!r} in {text!r}")
            values.append(int(digits))
    return kind(*values)


def describe_event(event, config) -> List[str]:
    """One or more lines saying what the event changed."""
    match event:
        case h.Initialized() if config.tasks:
            verb = "re-issues its unfinished calls" if event.reissue else "sends its calls"
            return [f"c{event.client} {verb} to i{event.instance}: task T{event.token} created, "
                    f"from m{event.work_start} (the answer is the task handle; the work runs "
                    f"in the background)"]
        case h.Emitted() if config.tasks:
            message = _msg(event.owner, event.msg, config.is_result(event.msg))
            lines = [f"i{event.instance} runs T{event.token}: {message} as {wid(event.wire)}, "
                     "kept in the task record for a poll"]
            if event.first_execution is not None:
                lines.append(f"the call is executed again (first by T{event.first_execution[0]}"
                             f"; {event.reexecution})")
            return lines
        case h.TaskPolled():
            said = {"unknown": "no record of the task here: the client will re-issue its calls",
                    "progress": f"{event.delivered} new message(s) on the answer",
                    "working": "working, nothing new",
                    "orphaned": "working, nothing new, and no process runs the task any more"}
            return [f"c{event.client} polls T{event.token} at i{event.instance}: "
                    f"{said[event.outcome]}"]
        case h.TaskExpired():
            where = "shared record" if event.instance is None else f"i{event.instance}'s record"
            return [f"the {where} of T{event.token} expires (TTL)"]
        case h.Initialized() if config.transport != "sessions":
            verb = "re-issues its unfinished calls" if event.reissue else "sends its calls"
            return [f"c{event.client} {verb} to i{event.instance}: request R{event.token}, "
                    f"from m{event.work_start} (no session; the response streams on the POST)"]
        case h.Emitted() if config.transport != "sessions":
            to = (", to " + ", ".join(f"c{c}" for c in event.live_to)) if event.live_to \
                else ", nobody listening"
            message = _msg(event.owner, event.msg, config.is_result(event.msg))
            how = "returns the recorded" if event.recorded else "sends"
            lines = [f"i{event.instance} {how} {message} of R{event.token} as "
                     f"{wid(event.wire)}{to}"]
            if event.first_execution is not None:
                lines.append(f"the call is executed again (first by R{event.first_execution[0]}"
                             f"; {event.reexecution})")
            return lines
        case h.RecordExpired():
            where = "shared record" if event.instance is None else f"i{event.instance}'s record"
            return [f"the {where} of c{event.client}:m{event.msg}'s call expires (TTL)"]
        case h.Initialized():
            verb = "re-initializes" if event.reissue else "initializes"
            primed = f"; priming event {wid(event.priming)} is its cursor" \
                if event.priming is not None else ""
            return [f"c{event.client} {verb} on i{event.instance}: new session S{event.token}, "
                    f"its calls run from m{event.work_start}{primed}"]
        case h.Emitted():
            to = (", live to " + ", ".join(f"c{c}" for c in event.live_to)) if event.live_to \
                else ", buffered only"
            message = _msg(event.owner, event.msg, config.is_result(event.msg))
            line = (f"i{event.instance} emits {message}"
                    f" of S{event.token} gen {event.generation} as {wid(event.wire)}{to}")
            lines = [line]
            if event.first_execution is not None:
                token, generation = event.first_execution
                lines.append(f"the call is executed again (first by S{token} gen {generation})")
            if event.dropped is not None:
                lines.append(f"buffer full: drops {wid(event.dropped)} (the floor rises)")
            return lines
        case h.Recreated():
            return [f"i{event.instance} holds no state for S{event.token}: recreates it as "
                    f"generation {event.generation}; its calls restart from m{event.work_start}"]
        case h.Decided():
            registry = "yes" if event.registry_has_session else "no"
            sees = (f"registry has S{event.token}: {registry}, "
                    f"held by this process: {'yes' if event.held_locally else 'no'}")
            where = f", cursor {event.position}" if event.position else ""
            lines = [f"GET S{event.token} Last-Event-ID={wid(event.cursor)} at i{event.instance} "
                     f"({sees}{where})",
                     f"[{event.gate}] {event.status} {event.code} effect={event.effect}"
                     + (f" resume_from={wid(event.resume_from)}" if event.resume_from is not None
                        else "") + (f": {event.reason}" if event.reason else "")]
            if event.status == 200 and event.replayed:
                lines.append(f"replays {event.replayed} event(s)")
            return lines
        case h.Applied():
            message = _msg(event.owner, event.msg, config.is_result(event.msg))
            return [f"c{event.client} applies {message} {wid(event.wire)} via {event.via}"]
        case h.Dropped():
            return [f"c{event.client} drops {wid(event.wire)} (id already seen)"]
        case h.Primed():
            return [f"c{event.client} takes priming id {wid(event.wire)} as its cursor"]
        case h.StreamStalled():
            return [f"c{event.client}'s stream on i{event.instance} can never carry its messages "
                    f"(opened: {event.admission}): it waits for nothing"]
        case h.StreamClosed():
            return [f"c{event.client}'s stream on i{event.instance} closes ({event.reason}) "
                    f"after {event.frames} data frame(s)"]
        case h.ClientFailed():
            return [f"c{event.client} gives up: {event.status} {event.code} (surfaced, no retry)"]
        case h.GapAccepted():
            return [f"c{event.client} accepts the gap; will resume after {wid(event.resume_from)}"]
        case h.CursorPersisted():
            return [f"c{event.client} persists S{event.token} / {wid(event.wire)}"]
        case h.ClientRestarted() if config.tasks:
            return [f"c{event.client} restarts and reloads its persisted task handle "
                    f"T{event.token}" if event.token is not None else
                    f"c{event.client} restarts with no task handle: it re-issues its calls"]
        case h.ClientRestarted() if config.transport != "sessions":
            return [f"c{event.client} restarts: no session to reload; it re-issues its "
                    "unfinished calls"]
        case h.ClientRestarted():
            return [f"c{event.client} restarts from its persisted S{event.token} / "
                    f"{wid(event.wire)}" + (" (stale: it had applied more)" if event.stale else "")]
        case h.CursorReplaced():
            return [f"c{event.client}'s cursor becomes {wid(event.wire)}, "
                    f"taken from c{event.donor}"]
        case h.InstanceChanged():
            kind = "T" if config.tasks else "R" if config.stateless else "S"
            lost = (": loses " + ", ".join(f"{kind}{t}" for t in event.lost_sessions)) \
                if event.lost_sessions else ""
            return [f"i{event.instance} {event.what} (incarnation {event.incarnation}){lost}"]
        case h.SessionEvicted():
            return [f"S{event.token} evicted from every registry and buffer"]
        case h.BufferCompacted():
            where = "shared buffer" if event.instance is None else f"i{event.instance}'s buffer"
            return [f"{where} of S{event.token} drops {wid(event.dropped)}"]
    return [repr(event)]


#: what a scripted incident shows on a stateless transport (every scenario: its faults hit
#: requests, not sessions)
STATELESS_NOTE = ("without sessions there is no cursor, buffer or generation to get wrong: a "
                  "fault that breaks a response stream loses what was in flight and the client "
                  "re-issues its unfinished calls; a call whose result was executed but not "
                  "delivered is executed again unless an execution record is seen "
                  "(stateless+idempotency). With tasks (a handle, polled) the work runs on "
                  "without any connection: a poll that finds no record of the task (local to "
                  "another process, or gone) has the client re-issue its calls, and a shared "
                  "record whose worker stopped answers \"working\" until it expires.")


def narrate(run: ScenarioRun) -> str:
    """The whole story of a scenario run, ending with the verdict."""
    s = run.scenario
    c = run.config
    out = [f"# {s.name}: {s.title} ({s.source})",
           f"policy: {run.gate}" + (" (transport tasks: no session; a call is answered with a "
                                    "task handle the client polls)" if c.tasks else
                                    f" (transport {c.transport}: no session, no resumption; "
                                    f"a broken response is re-issued)" if c.stateless else "")
           + f"   client: {run.client_profile} (on 404: {c.on_404}, "
           f"on 409: {c.on_409}, dedupe: {'on' if c.client_dedupe else 'off'})",
           f"deployment: {c.instances} instance(s), store={c.store}, buffer={c.buffer} "
           f"keyed by {c.buffer_keying}, capacity {c.buffer_capacity}, ids={c.event_ids}, "
           f"lb={c.lb}; {c.messages_per_session} messages per session in calls of "
           f"{c.messages_per_call}", ""]
    phase = None
    monitor = PropertyMonitor()  # the same checks that count, so marks and counts agree
    for step in run.steps:
        if step.phase != phase:
            phase = step.phase
            out.append("-- scripted --" if phase == "script" else "-- settling --")
        label = describe_action(step.action) if step.action is not None else "(route)"
        if step.skipped:
            out.append(f"{step.index:3d}. {label}: skipped, {step.skipped}")
            continue
        out.append(f"{step.index:3d}. {label}")
        for event in step.events:
            out.extend(f"       {line}" for line in describe_event(event, run.config))
            for finding in monitor.observe(step.index, event):
                mark = "VIOLATION " + finding.name if finding.name != "note" else "note"
                out.append(f"       {mark}: {finding.detail}")
    out.append("")
    if run.gate_error:
        out.append(f"GATE ERROR at step {len(run.steps) + 1}: {run.gate_error}")
    out.extend(f"note: {line}" for line in run.cut_short)
    out.append(f"why (with sessions): {s.explanation}" if c.stateless
               else f"why: {s.explanation}")
    if c.stateless:
        out.append(f"{run.gate}: {STATELESS_NOTE}")
    if run.gate in s.notes:
        out.append(f"{run.gate}: {s.notes[run.gate]}")
    violated = run.report.violated()
    out.append("violations: " + (", ".join(f"{k}={v}" for k, v in violated.items())
                                 if violated else "none"))
    r = run.report
    causes = ", ".join(f"{k}={v}" for k, v in sorted(r.duplicates_by_cause.items())) or "none"
    out.append(f"duplicates by cause: {causes}")
    out.append("decisions: " + ", ".join(f"{k}={v}" for k, v in sorted(r.decisions.items())))
    out.append(f"re-initializations: {r.reinits}, routing re-inits: {r.routing_reinits}, "
               f"clients that gave up: {r.failed_clients}")
    return "\n".join(out)
