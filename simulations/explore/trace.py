"""Counterexample traces: replayed on the model, told as a narrative, written as JSON.

A trace is the list of actions from the initial state. Replaying it re-derives every event, so
the narrative shows exactly what changed at each step, with the violation marked where it
happens.
"""
from __future__ import annotations

from typing import Dict, List, Tuple, Union

from model import apply, findings_of, initial_state, is_enabled, resolve_gate
from model.policies import Gate, GateFunction

from ..render import describe_action, describe_event, event_json
from .scope import Scope


def replay(scope: Scope, policy: Union[str, GateFunction, Gate],
           actions: List) -> List[Tuple[object, tuple]]:
    """(action, events) for each step; raises if an action is not enabled where it is used."""
    gate = resolve_gate(policy)
    state, steps = initial_state(scope.system), []
    for action in actions:
        if not is_enabled(state, scope.system, action):
            raise ValueError(f"{describe_action(action)} is not enabled at step {len(steps) + 1}")
        state, events = apply(state, action, scope.system, gate, check=False)
        steps.append((action, events))
    return steps


def narrate_trace(scope: Scope, policy, actions: List, title: str = "") -> str:
    """Step by step: the action, what changed, and every violation at the step it happens."""
    out = [title] if title else []
    for index, (action, events) in enumerate(replay(scope, policy, actions), start=1):
        out.append(f"{index:3d}. {describe_action(action)}")
        for event in events:
            out.extend(f"       {line}" for line in describe_event(event, scope.system))
            for finding in findings_of(event):
                if finding.name != "note":
                    out.append(f"       VIOLATION {finding.name}: {finding.detail}")
    return "\n".join(out)


def trace_json(scope: Scope, policy, actions: List) -> List[Dict[str, object]]:
    """The trace as JSON: each step's action and its events (wire ids rendered)."""
    steps = []
    for index, (action, events) in enumerate(replay(scope, policy, actions), start=1):
        steps.append({"step": index, "action": describe_action(action),
                      "events": [event_json(event) for event in events],
                      "violations": [f.name for e in events for f in findings_of(e)
                                     if f.name != "note"]})
    return steps
