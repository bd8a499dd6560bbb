"""Replay an explorer counterexample through the discrete-event engine.

The trace becomes a timed script (one action per simulated second) run by the SimPy engine's
world, with the client profile whose reactions match the scope's; the DES engine's property
monitor must then report the same violation.
"""
from __future__ import annotations

from typing import List

from model import PropertyMonitor

from ..des.crosscheck import run_scenario_des
from ..script import Scenario
from .scope import Scope


def trace_scenario(scope: Scope, actions: List, name: str = "trace") -> Scenario:
    return Scenario(name=name, title="explorer counterexample", source="explorer",
                    config=scope.system, steps=tuple(actions), explanation="")


def replay_in_des(scope: Scope, policy, actions: List) -> PropertyMonitor:
    """Run the trace in the DES engine; the finished world's monitor (its report has the
    violations the timed replay produced)."""
    profile = "spec" if scope.system.on_404 == "reinit" else "sdk-python"
    world, _ = run_scenario_des(trace_scenario(scope, actions), policy, profile=profile)
    return world.monitor
