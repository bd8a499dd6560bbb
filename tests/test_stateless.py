"""The stateless transports (protocol 2026-07-28) in the one model: re-issue on a break, and
idempotency keys with execution records, local or shared, that expire.

The explorer's findings are the issue's acceptance: a duplicate execution for plain `stateless`,
none for `stateless+idempotency` with a shared record within its TTL (a complete search), and
the shortest trace where a local record, or an expired one, breaks it.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model import (
    ConfigError,
    Disconnect,
    Emit,
    Expire,
    Init,
    Persist,
    Reconnect,
    SystemConfig,
    apply,
    enabled_actions,
    initial_state,
)
from model.history import Applied, Emitted
from model.pairs import tget
from model.stateless import record_key
from simulations.explore.scope import Scope
from simulations.explore.search import explore
from simulations.render.narrative import describe_action
from simulations.scenarios import SCENARIOS
from simulations.script import run_script

TRANSPORTS = ("stateless", "stateless+idempotency")


def _system(transport: str, record: str = "shared", **changes) -> SystemConfig:
    base = dict(instances=2, clients=1, messages_per_session=2, messages_per_call=1,
                lb="round_robin", transport=transport, execution_record=record)
    return SystemConfig(**{**base, **changes})


def _scope(system: SystemConfig, expiries: int = 0) -> Scope:
    return Scope(system=system, restarts=1, drops=1, half_opens=1, client_restarts=0,
                 compactions=0, foreign_cursors=0, sessions=3, expiries=expiries)


def _execution(result):
    return result.verdicts()["duplicate_execution"]


def test_plain_stateless_executes_a_reissued_call_again():
    """A result executed, its stream broken before delivery, the call re-issued: executed
    twice. The shortest trace is exactly that (5 steps)."""
    verdict = _execution(explore(_scope(_system("stateless")), "stateless"))
    assert verdict.verdict == "violated" and set(verdict.causes) == {"reissued_after_break"}
    steps = [describe_action(a) for a in verdict.causes["reissued_after_break"].actions]
    assert len(steps) == 5 and steps[0].startswith("Init(") and steps[-1].startswith("Emit(")
    assert sum(s.startswith("Init(") for s in steps) == 2


def test_a_shared_record_within_its_ttl_prevents_every_duplicate_execution():
    """Complete search: no interleaving of restarts, drops and half-open streams executes a
    call twice when every server sees the shared record and no record expires."""
    result = explore(_scope(_system("stateless+idempotency")), "stateless+idempotency")
    assert result.complete
    assert all(v.verdict == "holds" for v in result.verdicts().values())


def test_a_local_record_is_missed_where_the_reissue_lands_elsewhere():
    verdict = _execution(explore(_scope(_system("stateless+idempotency", "local")),
                                 "stateless+idempotency"))
    assert verdict.verdict == "violated"
    steps = [describe_action(a) for a in verdict.causes["record_elsewhere"].actions]
    assert len(steps) == 5
    inits = [s for s in steps if s.startswith("Init(")]
    assert len(inits) == 2 and inits[0] != inits[1]     # re-issued to the other instance


def test_an_expired_shared_record_is_missed():
    verdict = _execution(explore(_scope(_system("stateless+idempotency"), expiries=1),
                                 "stateless+idempotency"))
    assert verdict.verdict == "violated" and set(verdict.causes) == {"record_gone"}
    assert any(describe_action(a).startswith("Expire(")
               for a in verdict.causes["record_gone"].actions)


def test_a_stateless_transport_offers_no_session_actions():
    config = _system("stateless")
    state = initial_state(config)
    for action in (Init(0, 0), Emit(1), Disconnect(0)):
        assert action in enabled_actions(state, config)
        state = apply(state, action, config).state
    kinds = {type(a) for a in enabled_actions(state, config)}
    assert Reconnect not in kinds and Persist not in kinds
    assert state.clients[0].phase == "needs_init" and state.clients[0].token is None


def test_a_break_the_server_sees_cancels_the_request_a_half_open_one_does_not():
    config = _system("stateless", messages_per_session=3)
    state = apply(initial_state(config), Init(0, 0), config).state
    cancelled = apply(state, Disconnect(0), config).state
    assert tget(cancelled.instances[0].sessions, 1) is None
    from model import HalfOpen
    running = apply(state, HalfOpen(0), config).state
    assert tget(running.instances[0].sessions, 1) is not None
    assert Emit(1) in enabled_actions(running, config)


def test_a_recorded_result_skips_the_calls_progress_without_a_silent_loss():
    """Re-issued after its result was executed, a two-message call is answered from the
    record: the result alone, unexecuted; the skipped progress is no loss."""
    config = _system("stateless+idempotency", messages_per_session=2, messages_per_call=2,
                     lb="random")
    state = initial_state(config)
    events = []
    for action in (Init(0, 0), Emit(1), Emit(1), Disconnect(0), Init(0, 0), Emit(2)):
        state, step_events = apply(state, action, config)
        events.extend(step_events)
    recorded = [e for e in events if type(e) is Emitted and e.recorded]
    assert [e.msg for e in recorded] == [1] and recorded[0].first_execution is None
    from model import Deliver
    state, delivered = apply(state, Deliver(0), config)
    applied = [e for e in delivered if type(e) is Applied]
    assert applied[0].via == "recorded" and applied[0].holes == ()
    assert state.clients[0].missed == frozenset({0})
    assert state.clients[0].phase == "needs_init"       # the request is over: stream closed


def test_records_live_where_the_config_says_and_expire():
    for record in ("shared", "local"):
        config = _system("stateless+idempotency", record, messages_per_session=1, lb="random")
        state = initial_state(config)
        for action in (Init(0, 1), Emit(1)):
            state = apply(state, action, config).state
        key = record_key(config, 0, 0)
        where = None if record == "shared" else 1
        records = state.records if where is None else state.instances[where].records
        assert tget(records, key) == 1
        assert Expire(where, 0, 0) in enabled_actions(state, config)
        state = apply(state, Expire(where, 0, 0), config).state
        records = state.records if where is None else state.instances[where].records
        assert records == ()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(transport=st.sampled_from(TRANSPORTS), record=st.sampled_from(("shared", "local")),
       lb=st.sampled_from(("round_robin", "random", "least_connections", "sticky")),
       choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=60))
def test_random_walks_keep_the_stateless_invariants(transport, record, lb, choices):
    """On every walk: no session, buffer or registry ever exists; a request runs on at most
    one instance; every owner entry names a running request or one with messages in flight;
    with a shared record nothing expires here, so no call is executed twice."""
    config = SystemConfig(instances=2, clients=2, messages_per_session=3, messages_per_call=2,
                          lb=lb, transport=transport, execution_record=record)
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
        in_flight = {item.truth.token for c in state.clients for item in c.inflight}
        for token, _ in state.owners:
            assert token in running or token in in_flight or any(
                tget(inst.sessions, token) is not None for inst in state.instances)
        if transport == "stateless+idempotency" and record == "shared":
            assert not any(type(e) is Emitted and e.first_execution is not None
                           for e in events)


def test_bad_combinations_are_named():
    with pytest.raises(ConfigError, match="transport"):
        SystemConfig(transport="polling")
    with pytest.raises(ConfigError, match="execution_record"):
        SystemConfig(transport="stateless+idempotency", execution_record="redis")


def test_a_sessions_config_reads_as_before_and_round_trips():
    assert "transport" not in SystemConfig().as_dict()
    assert "execution_record" not in SystemConfig().as_dict()
    for config in (SystemConfig(transport="stateless"),
                   SystemConfig(transport="stateless+idempotency", execution_record="local"),
                   SystemConfig(execution_record="local")):
        assert SystemConfig.from_mapping(config.as_dict()) == config


def test_the_restart_incident_under_each_transport():
    """result_lost_in_a_restart: strict refuses and the re-initialized session re-runs the
    call (a cost); plain stateless executes it again (a violation); a shared execution record
    answers the re-issue unexecuted."""
    scenario = SCENARIOS["result_lost_in_a_restart"]
    strict = run_script(scenario, "strict").report
    assert strict.violated() == {} and strict.costs["reexecuted_call"] == 1
    plain = run_script(scenario, "stateless").report
    assert plain.violated() == {"duplicate_execution": 1}
    keyed = run_script(scenario, "stateless+idempotency").report
    assert keyed.violated() == {} and keyed.costs["reexecuted_call"] == 0
    local = run_script(scenario, "stateless+idempotency",
                       overrides={"execution_record": "local"}).report
    assert local.violated() == {"duplicate_execution": 1}


def test_the_des_runs_stateless_rows_beside_strict_with_common_random_numbers():
    """One replication with many drops and restarts: every row sees the same arrivals; plain
    stateless executes calls again, a shared record never does, a local record misses where
    the re-issue lands elsewhere."""
    from simulations.des import config as dc
    from simulations.des.runner import run_replication
    rows = ["strict", "stateless", "stateless+idempotency"]
    settings = ["timing.duration=1800", "timing.drop_rate=0.02", "timing.restart_period=300"]
    records = {}
    for record in ("shared", "local"):
        config = dc.load(None, settings + [f'system.execution_record="{record}"'],
                         replications=1, policies=rows)
        records[record] = {row: run_replication(config, row, 0) for row in rows}
    shared, local = records["shared"], records["local"]
    assert len({r["sessions"] for r in shared.values()}) == 1
    assert shared["stateless"]["violations"]["duplicate_execution"] > 0
    assert set(shared["stateless"]["executions_by_cause"]) == {"reissued_after_break"}
    assert shared["stateless+idempotency"]["violations"]["duplicate_execution"] == 0
    assert local["stateless+idempotency"]["executions_by_cause"].get("record_elsewhere", 0) > 0
    assert shared["stateless"]["resumptions"] == 0 and shared["strict"]["resumptions"] > 0


def test_the_des_expires_records_after_their_ttl():
    """A record TTL shorter than a call's re-issue delay: re-issues find the record gone."""
    from simulations.des import config as dc
    from simulations.des.runner import run_replication
    settings = ["timing.duration=1800", "timing.drop_rate=0.02", "timing.record_ttl=0.01"]
    config = dc.load(None, settings, replications=1, policies=["stateless+idempotency"],
                     baseline="stateless+idempotency")
    record = run_replication(config, "stateless+idempotency", 0)
    assert record["executions_by_cause"].get("record_gone", 0) > 0


def test_a_verification_space_takes_stateless_rows(tmp_path):
    from simulations.verify.run import run_space
    from simulations.verify.space import parse
    space = parse({"policies": ["strict", "stateless", "stateless+idempotency"],
                   "scope": {"clients": 1, "messages_per_session": 2, "restarts": 1,
                             "drops": 1, "client_restarts": 0, "compactions": 0,
                             "foreign_cursors": 0},
                   "blocks": [{"name": "two instances", "axes": {
                       "instances": [2], "lb": ["round_robin"],
                       "execution_record": ["shared", "local"]}}]})
    result = run_space(space, tmp_path, progress=False)
    verdicts = {(r["policy"], r["deployment"].get("execution_record", "shared")):
                r["properties"]["duplicate_execution"]["verdict"] for r in result["records"]}
    assert verdicts[("stateless", "shared")] == "violated"
    assert verdicts[("stateless+idempotency", "shared")] == "holds"
    assert verdicts[("stateless+idempotency", "local")] == "violated"
    assert all(r["complete"] for r in result["records"])


def test_the_readme_shows_the_designs_table():
    from pathlib import Path

    from simulations.transports import verdicts_markdown
    from simulations.verify.claims import block
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    table = verdicts_markdown()
    assert block(readme, "transports") == table
    rows = {line.split(" | ")[0].strip("| "): line for line in table.splitlines()[2:]}
    assert "EXEC" in rows["`stateless` (re-issue on a break)"]
    assert "every judged property holds" in rows["`stateless+idempotency`, shared record"]
