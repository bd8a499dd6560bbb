"""The tasks transport (protocol 2026-07-28 with the Tasks extension) in the one model: a call
returns a task handle, the work runs in the background, the client polls the task record.

The explorer's findings: with a shared task record a worker that stops leaves a record that
says "working" until it expires (a stall, and a client that waits forever within the scope),
and no call is executed twice while no record expires; with a local record a poll that lands
on another instance finds nothing, the client re-issues, and the call is executed twice.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model import (
    ClientRestart,
    Deliver,
    Disconnect,
    Emit,
    Expire,
    Init,
    Reconnect,
    Stop,
    SystemConfig,
    apply,
    enabled_actions,
    initial_state,
)
from model.history import Applied, Emitted, StreamStalled, TaskPolled
from model.pairs import tget
from model.properties import findings_of
from simulations.explore.scope import Scope
from simulations.explore.search import explore
from simulations.render.narrative import describe_action


def _system(record: str = "shared", **changes) -> SystemConfig:
    base = dict(instances=2, clients=1, messages_per_session=2, messages_per_call=1,
                lb="round_robin", transport="tasks", execution_record=record)
    return SystemConfig(**{**base, **changes})


def _scope(system: SystemConfig, expiries: int = 0) -> Scope:
    return Scope(system=system, restarts=1, drops=1, half_opens=1, client_restarts=0,
                 compactions=0, foreign_cursors=0, sessions=3, expiries=expiries)


def _run(config, actions, state=None):
    state = initial_state(config) if state is None else state
    events = []
    for action in actions:
        state, step = apply(state, action, config)
        events.extend(step)
    return state, events


def _polled(events):
    return [e.outcome for e in events if type(e) is TaskPolled]


def test_a_shared_record_whose_worker_stopped_stalls_the_client():
    """Complete search: the only judged failures are the stall (a poll that finds a task no
    process runs) and the wait it starts; shortest: create, stop the worker, poll."""
    result = explore(_scope(_system()), "tasks")
    verdicts = result.verdicts()
    assert result.complete
    failing = {name for name, v in verdicts.items() if v.verdict != "holds"}
    assert failing == {"stall", "stall_liveness"}
    steps = [describe_action(a) for a in verdicts["stall"].causes["poll"].actions]
    assert len(steps) == 3 and steps[0].startswith("Init(") and steps[1].startswith("Stop(")
    assert steps[2].startswith("Reconnect(")
    assert result.sometimes["orphaned_task"]


def test_a_local_record_is_missed_by_a_poll_elsewhere_and_the_call_runs_twice():
    verdict = explore(_scope(_system("local")), "tasks").verdicts()["duplicate_execution"]
    assert verdict.verdict == "violated"
    steps = [describe_action(a) for a in verdict.causes["record_elsewhere"].actions]
    assert len(steps) == 5
    assert [s.split("(")[0] for s in steps] == ["Init", "Reconnect", "Init", "Emit", "Emit"]


def test_a_local_record_never_stalls_a_client():
    """The record dies with its worker: a poll finds nothing and the client re-issues."""
    verdicts = explore(_scope(_system("local")), "tasks").verdicts()
    assert verdicts["stall"].verdict == "holds"
    assert verdicts["stall_liveness"].verdict == "holds"


def test_a_shared_record_that_expires_before_the_result_is_fetched_runs_the_call_again():
    verdict = explore(_scope(_system(), expiries=1), "tasks").verdicts()["duplicate_execution"]
    assert verdict.verdict == "violated" and set(verdict.causes) == {"record_gone"}
    assert any(describe_action(a).startswith("Expire(")
               for a in verdict.causes["record_gone"].actions)


def test_a_poll_answers_from_the_record_after_the_clients_cursor():
    config = _system(messages_per_session=3, messages_per_call=3, lb="random")
    state, events = _run(config, [Init(0, 0)])
    assert state.clients[0].phase == "idle" and state.clients[0].token == 1
    assert state.clients[0].persisted == (1, None)            # the handle is durable
    state, events = _run(config, [Reconnect(0, 1)], state)     # nothing produced yet
    assert _polled(events) == ["working"] and state.clients[0].phase == "idle"
    state, events = _run(config, [Emit(1), Emit(1), Reconnect(0, 1)], state)
    assert _polled(events) == ["progress"] and len(state.clients[0].inflight) == 2
    state, events = _run(config, [Deliver(0), Deliver(0)], state)
    assert [e.msg for e in events if type(e) is Applied] == [0, 1]
    assert state.clients[0].phase == "idle"                   # the answer ends once drained
    state, events = _run(config, [Emit(1), Reconnect(0, 0), Deliver(0)], state)
    assert [e.msg for e in events if type(e) is Applied] == [2]   # only what is new
    assert Reconnect(0, 0) not in enabled_actions(state, config)  # nothing owed: no polls


def test_an_orphaned_task_holds_the_poll_until_its_record_expires():
    config = _system(lb="random")
    state, events = _run(config, [Init(0, 0), Stop(0), Reconnect(0, 1)])
    assert _polled(events) == ["orphaned"]
    stalls = [e for e in events if type(e) is StreamStalled]
    assert len(stalls) == 1 and stalls[0].admission == "poll"
    assert any(f.name == "stall" for e in stalls for f in findings_of(e))
    assert state.clients[0].phase == "open"
    state, events = _run(config, [Expire(None, 0, 1)], state)
    assert state.clients[0].phase == "idle" and state.records == ()
    state, events = _run(config, [Reconnect(0, 1)], state)
    assert _polled(events) == ["unknown"] and state.clients[0].phase == "needs_init"
    state, events = _run(config, [Init(0, 1), Emit(2)], state)
    executed = [e for e in events if type(e) is Emitted]
    assert executed[0].first_execution is None      # the first worker died before its result


def test_a_dropped_poll_answer_is_fetched_again_by_the_next_poll():
    config = _system(messages_per_session=1, lb="random")
    state, _ = _run(config, [Init(0, 0), Emit(1), Reconnect(0, 1), Disconnect(0)])
    assert state.clients[0].phase == "idle" and state.clients[0].token == 1
    state, events = _run(config, [Reconnect(0, 0), Deliver(0)], state)
    assert [e.msg for e in events if type(e) is Applied] == [0]


def test_a_restarted_client_polls_its_persisted_handle_and_redelivery_is_its_own_doing():
    config = _system(messages_per_session=2, messages_per_call=2, lb="random")
    state, _ = _run(config, [Init(0, 0), Emit(1), Reconnect(0, 0), Deliver(0),
                             ClientRestart(0)])
    assert state.clients[0].token == 1 and state.clients[0].cursor is None
    state, events = _run(config, [Reconnect(0, 0), Deliver(0)], state)
    again = [e for e in events if type(e) is Applied]
    assert again and again[0].first_token == 1         # applied before, on the same task
    assert not any(f.name != "note" for e in again for f in findings_of(e))


def test_a_poll_carries_no_session_id_for_a_sticky_lb():
    config = _system(lb="sticky")
    state, _ = _run(config, [Init(0, 0)])
    assert [a for a in enabled_actions(state, config) if type(a) is Reconnect] == \
        [Reconnect(0, 1)]                             # round-robin: the next instance


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(record=st.sampled_from(("shared", "local")),
       lb=st.sampled_from(("round_robin", "random", "least_connections", "sticky")),
       choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=80))
def test_random_walks_keep_the_task_invariants(record, lb, choices):
    """On every walk: no session, buffer or registry; a task runs on at most one instance;
    every record names a task whose owner is known; no client applies another's message or
    skips one unannounced; with a shared record and no expiry no call is executed twice."""
    config = SystemConfig(instances=2, clients=2, messages_per_session=3, messages_per_call=2,
                          lb=lb, transport="tasks", execution_record=record)
    state = initial_state(config)
    for choice in choices:
        actions = [a for a in enabled_actions(state, config) if type(a) is not Expire]
        if not actions:
            break
        state, events = apply(state, actions[choice % len(actions)], config)
        assert state.registry == () and state.buffers == ()
        assert all(inst.buffers == () for inst in state.instances)
        running = [t for inst in state.instances if inst.status != "down"
                   for t, _ in inst.sessions]
        assert len(running) == len(set(running))
        keys = [k for k, _ in state.records] + [k for inst in state.instances
                                                for k, _ in inst.records]
        assert all(tget(state.owners, k) is not None for k in keys)
        for event in events:
            names = {f.name for f in findings_of(event)}
            assert not names & {"cross_session_delivery", "silent_loss", "duplicate_delivery"}
            if record == "shared":
                assert "duplicate_execution" not in names


@pytest.mark.parametrize("overrides, message", [
    (["timing.record_ttl=0"], "timing.record_ttl"),         # a task TTL of 0
    (["timing.poll_interval=0"], "timing.poll_interval"),
    (["system.transport=tasks"], "run.policies"),           # a gate on a transport without
])                                                          # resumption
def test_bad_task_configurations_are_named(overrides, message):
    from model import ConfigError
    from simulations.des.config import load
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        load(None, overrides, policies=["tasks"] if "transport" not in overrides[0]
             else ["strict"])


def test_the_des_counts_a_recovery_only_when_new_data_arrives():
    """A client restarted on an orphaned task gets its last message again from the record and
    is still stalled: a re-delivery is no recovery. Every recovery the DES counts ends with a
    message the client applies for the first time."""
    import numpy as np

    from simulations.des.config import load
    from simulations.des.runner import build_world
    config = load(None, ["timing.duration=1200", "system.buffer=\"shared\"",
                         "timing.client_restart_rate=0.01"], policies=["tasks"],
                  baseline="tasks")
    world = build_world(config, "tasks", np.random.SeedSequence(1))
    first_applied, recoveries = [], []
    apply, recovered = world.apply, world.recovered

    def applying(action):
        events = apply(action)
        first_applied.extend((world.env.now, e.client) for e in events
                             if type(e) is Applied and e.first_token is None)
        return events

    def recovering(seconds):
        recoveries.append(world.env.now)
        recovered(seconds)
    world.apply, world.recovered = applying, recovering
    world.env.run(until=config.timing.duration)
    stalled = world.monitor.report.violations["stall"]
    assert recoveries and stalled          # the scope has both
    times = {t for t, _ in first_applied}
    assert all(t in times for t in recoveries)
