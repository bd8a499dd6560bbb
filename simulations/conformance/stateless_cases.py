"""The stateless conformance cases (protocol 2026-07-28: no session, a request per POST, a
broken response re-issued as a new request) and the model's prediction for each. The real side
lives in `stateless_drills.py`; this module needs only the model, so the cases and their
predictions can be listed without the `conformance` extra.

Each case is one client's calls and one fault that breaks the response of the first request
(the "broken request"); the client then re-issues its unfinished calls. Its model scenario runs
under the `stateless` transport (`simulations.script.run_script`, policy "stateless").
Invariant: a model message of a call is one of the real tool's messages (progress notifications,
then the result, whose emission executes the call), and each model `Init` is one POST.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, NamedTuple, Tuple

from model import Deliver, Disconnect, Drain, Emit, HalfOpen, Start, Stop, SystemConfig
from model.history import Applied, StreamClosed
from model.server_events import Emitted, Initialized, InstanceChanged

from ..scenarios import SCENARIOS
from ..script import Scenario, ScenarioRun, Settle, route, run_script

#: the model's name of the transport every case runs on
TRANSPORT = "stateless"
#: one instance, one client, one call of three messages (two progress notifications, then the
#: result), as the real tool `work(progress=2)` sends them
_ONE = SystemConfig(instances=1, clients=1, messages_per_session=3, messages_per_call=3,
                    store="local", buffer="local", lb="round_robin", transport=TRANSPORT)

#: What became of the broken request (Outcome.broken).
CANCELLED = "cancelled"                  # stopped before its side effect (the call unexecuted)
RAN_ON = "ran_on"                        # executed after the break, with nobody listening
EXECUTED_THEN_LOST = "executed_then_lost"  # executed before the break; its result was lost
#: Where the re-issue ran (Outcome.reissue_on).
SAME_PROCESS, RESTARTED, OTHER_INSTANCE = "same process", "same instance, restarted", \
    "other instance"
COMPLETED, INCOMPLETE = "completed", "incomplete"


class Outcome(NamedTuple):
    """What a stateless case ended as, comparable between the model and a real run."""
    executions: Tuple[int, ...]   # per logical call, in order: times the server executed it
    broken: str                   # CANCELLED / RAN_ON / EXECUTED_THEN_LOST
    reissue_on: str               # SAME_PROCESS / RESTARTED / OTHER_INSTANCE
    reissues: int                 # requests that re-sent an already-sent call
    duplicate_execution: int      # calls executed more than once (the judged property)
    client: str                   # COMPLETED: every call's result reached the client

    def differences(self, other: "Outcome") -> List[str]:
        return [f"{name}: model {mine!r}, real {theirs!r}"
                for name, mine, theirs in zip(self._fields, self, other) if mine != theirs]

    def as_dict(self) -> Dict[str, object]:
        out = dict(self._asdict())
        out["executions"] = list(self.executions)
        return out

    @staticmethod
    def from_dict(data: Dict) -> "Outcome":
        return Outcome(**{**data, "executions": tuple(data["executions"])})


@dataclass(frozen=True)
class StatelessCase:
    name: str
    title: str
    topology: str       # "direct" or "nginx round_robin"
    does: str           # what the harness does, in one sentence
    scenario: Scenario
    note: str = ""      # a documented difference between the model and the harness, if any
    #: a documented reason a real run may differ from the model (the row then says
    #: "explained"); empty: the row must agree
    explained: str = ""


def _scenario(name: str, config: SystemConfig, steps: List) -> Scenario:
    return Scenario(name=name, title=name, source="conformance (stateless)", config=config,
                    steps=tuple(steps), explanation="")


_FIRST_PROGRESS = [route("init", 0), Emit(1), Deliver(0)]
_BOTH_PROGRESS = _FIRST_PROGRESS + [Emit(1), Deliver(0)]

CASES: Dict[str, StatelessCase] = {c.name: c for c in (
    StatelessCase(
        "stateless_break_seen", "The client closes the POST mid-call; the server sees it",
        "direct", "the client closes its POST's connection after the first progress "
        "notification, waits for the server to notice, then re-issues the call",
        _scenario("stateless_break_seen", _ONE,
                  _FIRST_PROGRESS + [Disconnect(0), route("reconnect", 0), Settle()])),
    StatelessCase(
        "stateless_break_half_open", "The POST goes half-open mid-call; the server runs on",
        "direct", "the client stops reading its POST after the first progress notification but "
        "leaves the connection open; the tool is let go on, then the client re-issues the call",
        _scenario("stateless_break_half_open", _ONE,
                  _FIRST_PROGRESS + [HalfOpen(0), Emit(1), Emit(1), route("reconnect", 0),
                                     Settle()])),
    StatelessCase(
        "stateless_restart_mid_call", "The instance restarts mid-call, before the side effect",
        "direct", "after the first progress notification the server process is stopped "
        "(SIGTERM) and a new incarnation started on the same port; the client re-issues",
        _scenario("stateless_restart_mid_call", _ONE,
                  _FIRST_PROGRESS + [Drain(0), Stop(0), Start(0), route("reconnect", 0),
                                     Settle()])),
    StatelessCase(
        "stateless_restart_result_lost", "The instance restarts after the side effect, with "
        "the result in flight", "direct", "the tool executes its side effect and pauses before "
        "returning; the process is stopped and started again; the client re-issues",
        _scenario("stateless_restart_result_lost", _ONE,
                  _BOTH_PROGRESS + [Emit(1), Drain(0), Stop(0), Start(0),
                                    route("reconnect", 0), Settle()])),
    StatelessCase(
        "stateless_failover_round_robin", "Failover behind round-robin: the re-issue lands on "
        "the other instance (the incident result_lost_in_a_restart)", "nginx round_robin",
        "two calls through nginx; the first one's side effect is executed and its result in "
        "flight when the instance serving it stops; the client re-issues it through nginx, "
        "then sends its second call; the stopped instance is started again",
        SCENARIOS["result_lost_in_a_restart"]),
)}


def model_run(case: StatelessCase) -> ScenarioRun:
    """The case's scenario on the stateless transport, with a spec client (re-issues)."""
    return run_script(case.scenario, TRANSPORT)


def calls(run: ScenarioRun) -> List[int]:
    """The result message of each logical call of client 0, in order."""
    per = run.config.messages_per_call
    return [min(start + per, run.config.messages_per_session) - 1
            for start in range(0, run.config.messages_per_session, per)]


def predict(case: StatelessCase) -> Outcome:
    """The model's Outcome: executions are its `Emitted` results that executed (not from a
    record), the broken request is the first `Init`'s, the break its first stream closing (or
    the scripted HalfOpen)."""
    run = model_run(case)
    if run.gate_error:
        raise RuntimeError(f"{case.name}: the model stopped: {run.gate_error}")
    events = [(r, e) for r in run.steps for e in r.events]
    inits = [(n, e) for n, (_, e) in enumerate(events) if type(e) is Initialized]
    if len(inits) < 2:
        raise RuntimeError(f"{case.name}: the model's client never re-issued its calls")
    first, second = inits[0][1], inits[1][1]
    broke = next(n for n, (r, e) in enumerate(events)
                 if (type(e) is StreamClosed and e.client == 0) or isinstance(r.action, HalfOpen))
    executed = [(n, e) for n, (_, e) in enumerate(events) if type(e) is Emitted
                and e.result and not e.recorded]
    own = [n for n, e in executed if e.token == first.token]
    broken = EXECUTED_THEN_LOST if any(n < broke for n in own) else RAN_ON if own else CANCELLED
    restarted = any(type(e) is InstanceChanged and e.what == "start"
                    and e.instance == first.instance for _, e in events[inits[0][0]:inits[1][0]])
    reissue_on = OTHER_INSTANCE if second.instance != first.instance else \
        RESTARTED if restarted else SAME_PROCESS
    results = calls(run)
    executions = tuple(sum(1 for _, e in executed if e.msg == msg) for msg in results)
    reissues = sum(1 for _, e in inits if e.reissue)
    applied = {e.msg for _, e in events if type(e) is Applied and e.owner == 0}
    client = COMPLETED if all(msg in applied for msg in results) else INCOMPLETE
    return Outcome(executions, broken, reissue_on, reissues,
                   run.report.violations["duplicate_execution"], client)
