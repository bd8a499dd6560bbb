"""The scripted engine: deterministic action sequences (the seed incidents) run on the model.

A script is a list of steps: model actions, `route(...)` markers that let the load balancer pick
the instance, and `Settle` markers that let the system run its normal course (deliver, emit,
re-initialize, reconnect, time out dead streams) until nothing more happens. The same script runs
under any gate; what the gate decides changes what the settle phase does.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, NamedTuple, Optional, Tuple, Union

from model import (
    Deliver,
    Emit,
    GateError,
    IdleTimeout,
    Init,
    Reconnect,
    Report,
    State,
    SystemConfig,
    apply,
    check_history,
    enabled_actions,
    initial_state,
    resolve_gate,
)
from model.actions import Action
from model.history import Applied
from model.lb import route_choices
from model.policies import STATELESS_ROWS, Gate, GateFunction, no_resumption
from model.resume import stream_is_dead

from .clients import resolve_client, with_client


class Route(NamedTuple):
    """Send client `client`'s initialize ("init") or resumption ("reconnect") through the LB."""
    kind: str
    client: int


def route(kind: str, client: int) -> Route:
    if kind not in ("init", "reconnect"):
        raise ValueError(f"route kind must be 'init' or 'reconnect', got {kind!r}")
    return Route(kind, client)


class Settle(NamedTuple):
    """Run the normal course until quiescent; stop a client after `max_reconnects` attempts."""
    max_steps: int = 200
    max_reconnects: int = 3


ScriptStep = Union[Action, Route, Settle]


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    source: str                  # the incident it comes from (README: incident A or B)
    config: SystemConfig
    steps: Tuple[ScriptStep, ...]
    explanation: str             # what the scenario shows, printed after the narrative
    notes: Dict[str, str] = field(default_factory=dict)  # per policy: why it does what it does


@dataclass
class StepRecord:
    index: int
    action: Optional[Action]       # None when the step was skipped
    events: Tuple[NamedTuple, ...]
    phase: str                     # "script" or "settle"
    skipped: str = ""              # why a scripted step did not apply


@dataclass
class ScenarioRun:
    scenario: Scenario
    gate: str
    client_profile: str
    config: SystemConfig
    steps: List[StepRecord]
    report: Report
    final_state: State
    cut_short: List[str]           # clients the settle phase stopped while they kept retrying
    gate_error: str = ""           # the gate raised or returned garbage: the run stopped there


def client_config(config: SystemConfig, gate: Gate, choice: str) -> Tuple[SystemConfig, str]:
    """The scenario's config with the client `choice` applied (simulations/clients.py: `auto`
    pairs the `sdk` policy with the SDK client and every other gate with a spec client;
    `config` keeps the scenario's reactions), and the profile that ran."""
    profile = resolve_client(choice, gate.name)
    return with_client(config, profile), profile


def resolve_route(state: State, config: SystemConfig, step: Route):
    """The request a Route step sends: on a stateless transport a "reconnect" is the client's
    re-issue of its unfinished calls (a new request, routed like any); with tasks it is a poll
    of the client's task while it holds a handle (a request with no session id to route by)."""
    token = None if step.kind == "init" or config.tasks else state.clients[step.client].token
    choices = route_choices(state, config, token)
    if len(choices) != 1:
        return None, f"the load balancer offers {list(choices)}: name the instance in the script"
    polls = config.tasks and state.clients[step.client].token is not None
    cls = Init if step.kind == "init" or (config.stateless and not polls) else Reconnect
    return cls(step.client, choices[0]), ""


def settle_action(state: State, config: SystemConfig, attempts: Counter,
                  max_reconnects: int):
    """The next action of the system's normal course, or None when quiescent: clients first
    (apply what arrived, re-initialize, reconnect at once), then the servers' work, then the LB
    closing streams that can never carry data. With tasks the work comes before the polls (a
    client polls after its poll interval, by which time the worker has done its part)."""
    enabled = enabled_actions(state, config)
    current = {client.token for client in state.clients if client.token is not None}
    order = (Deliver, Init, Emit, Reconnect, IdleTimeout) if config.tasks else \
        (Deliver, Init, Reconnect, Emit, IdleTimeout)
    for wanted in order:
        for action in enabled:
            if type(action) is not wanted:
                continue
            if wanted is Reconnect and attempts[action.client] >= max_reconnects:
                continue
            if wanted is Emit and action.token not in current:
                continue
            if wanted is IdleTimeout and not stream_is_dead(state, config, action.client):
                continue
            return action
    return None


def run_script(scenario: Scenario, policy: Union[str, GateFunction, Gate] = "strict",
               client_profile: str = "auto", overrides: Optional[dict] = None) -> ScenarioRun:
    """Run a scenario's script under a gate, or on a stateless transport (`policy` names it:
    the scenario's deployment without sessions), and judge it with the registry's
    properties. Scripted steps a stateless transport has no use for (persisting a cursor, a
    resumption) are recorded as skipped."""
    config = scenario.config.replace(**overrides) if overrides else scenario.config
    if isinstance(policy, str) and policy in STATELESS_ROWS:
        config = config.replace(transport=policy)
    gate = no_resumption(config.transport) if config.stateless else resolve_gate(policy)
    config, profile = client_config(config, gate, client_profile)
    state = initial_state(config)
    records: List[StepRecord] = []
    cut_short: List[str] = []
    gate_error = ""
    try:
        for step in scenario.steps:
            if isinstance(step, Settle):
                state = _settle(state, config, gate, step, records, cut_short)
                continue
            action, why = resolve_route(state, config, step) if isinstance(step, Route) \
                else (step, "")
            if action is None or action not in enabled_actions(state, config):
                records.append(StepRecord(len(records) + 1, action, (), "script",
                                          why or "not enabled in this run"))
                continue
            state, events = apply(state, action, config, gate, check=False)
            records.append(StepRecord(len(records) + 1, action, events, "script"))
    except GateError as exc:  # a finding about the gate, reported with the steps so far
        gate_error = str(exc)
    history = [(r.index, e) for r in records for e in r.events]
    report = check_history(history, end_time=len(records))
    return ScenarioRun(scenario, gate.name, profile, config, records, report, state, cut_short,
                       gate_error)


def _settle(state: State, config: SystemConfig, gate: Gate, step: Settle,
            records: List[StepRecord], cut_short: List[str]) -> State:
    attempts: Counter = Counter()
    for _ in range(step.max_steps):
        action = settle_action(state, config, attempts, step.max_reconnects)
        if action is None:
            break
        if type(action) is Reconnect:
            attempts[action.client] += 1
        state, events = apply(state, action, config, gate, check=False)
        records.append(StepRecord(len(records) + 1, action, events, "settle"))
        for event in events:
            if type(event) is Applied:
                attempts[event.client] = 0  # progress: the retry streak is over
    for c, n in sorted(attempts.items()):
        client = state.clients[c]
        if n >= step.max_reconnects and client.phase in ("idle", "open"):
            cut_short.append(f"c{c} stopped after {n} reconnect attempts in a row; "
                             "every attempt was answered the same way, so it would go on forever")
    return state

