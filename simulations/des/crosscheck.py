"""Run a scripted incident through the discrete-event engine (timed, one replication).

The scripted prefix (faults and the events before them) is applied one step per `step_seconds`;
at a `Settle` marker the DES components take over instead of the script's settle scheduler:
clients reconnect with their profile's backoff, sessions emit at exponential intervals, the LB
times out dead streams. The verdicts (which properties are violated) must be the scripted
engine's; `tests/test_des.py` asserts it for every scenario and policy.
"""
from __future__ import annotations

from typing import Optional, Tuple

import numpy as np
import simpy

from model import initial_state, is_enabled, resolve_gate
from model.work import live_tokens

from ..script import Route, Scenario, Settle, resolve_route
from .components import ClientProcess
from .config import DesConfig, Timing
from .servers import Reaper, RecordExpiry, start_worker
from .world import World

QUIET = dict(arrival_rate=0.0, drop_rate=0.0, client_restart_rate=0.0, restart_period=0.0,
             crash_rate=0.0, idle_ttl=1e9, absolute_ttl=1e9)


def crosscheck_config(scenario: Scenario, policy: str, settle_seconds: float,
                      profile: Optional[str] = None) -> DesConfig:
    """The scenario's deployment, no random faults, and the client the scripted run pairs with
    the policy (the MCP Python SDK client for `sdk`, a spec client otherwise) unless `profile`
    names one."""
    system = scenario.config.replace(on_404="reinit", on_409="reinit")
    steps = len(scenario.steps) + 1
    settles = sum(1 for s in scenario.steps if isinstance(s, Settle))
    timing = Timing(duration=steps + settles * settle_seconds + 1.0, **QUIET)
    row = f"{policy}+{profile}" if profile else policy
    return DesConfig(system=system, timing=timing, client_profile="spec",
                     policies=(row,), replications=1, seed=0, baseline=row)


def run_scenario_des(scenario: Scenario, policy: str, step_seconds: float = 1.0,
                     settle_seconds: float = 300.0, seed: int = 0,
                     profile: Optional[str] = None) -> Tuple[World, DesConfig]:
    """One timed replication of the scenario under `policy`; returns the finished world."""
    config = crosscheck_config(scenario, policy, settle_seconds, profile)
    env = simpy.Environment()
    row = config.policies[0]
    world = World(env, config, resolve_gate(policy), np.random.SeedSequence(seed),
                  state=initial_state(config.model_config(row)), row=row)
    live = {"on": False}

    def activate() -> None:
        if live["on"]:
            return
        live["on"] = True
        world.start_worker = lambda token: start_worker(world, token)
        for token in live_tokens(world.state, world.system):
            start_worker(world, token)
        for slot, client in enumerate(world.state.clients):
            if client.phase != "gone":
                ClientProcess(world, slot, client.ident)
        if world.system.stateless:
            RecordExpiry(world)
        else:
            Reaper(world)

    def driver():
        for step in scenario.steps:
            if isinstance(step, Settle):
                activate()
                yield env.timeout(settle_seconds)
                continue
            yield env.timeout(step_seconds)
            action = resolve_route(world.state, world.system, step)[0] \
                if isinstance(step, Route) else step
            if action is not None and is_enabled(world.state, world.system, action):
                world.apply(action)

    env.process(driver())
    env.run(until=config.timing.duration)
    world.finish()
    return world, config
