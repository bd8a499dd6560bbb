"""Regression tests built from the traces that showed the verdicts unsound.

Each test replays an action sequence found by hand or by the explorer against an earlier model
and asserts what the model does now.
"""
from model import (
    ClientRestart,
    Deliver,
    Disconnect,
    Emit,
    ForeignCursor,
    Init,
    Persist,
    Reconnect,
    Start,
    Stop,
    SystemConfig,
    apply,
    check_history,
    initial_state,
)
from model.history import Decided, Emitted, Recreated, StreamStalled
from model.observe import build_view
from model.protocol import ResumeRequest


def run(config, actions, gate="strict"):
    """Apply the actions (each may name its own gate as (action, gate)); the final state and
    the history."""
    state, history = initial_state(config), []
    for step, item in enumerate(actions):
        action, by = item if isinstance(item, tuple) else (item, gate)
        state, events = apply(state, action, config, by)
        history.extend((step, e) for e in events)
    return state, history


def events_of(history, kind):
    return [e for _, e in history if type(e) is kind]


# Trace 1: shared store and buffer, per-session counter ids, random LB.
PER_SESSION = SystemConfig(instances=2, clients=1, messages_per_session=6, messages_per_call=3,
                           store="shared", buffer="shared", event_ids="per_session", lb="random")
BEFORE_REFUSAL = [Init(0, 0), Emit(1), Deliver(0), Emit(1), Deliver(0), Persist(0),
                  Disconnect(0)]


def test_a_refused_resumption_creates_no_server_state():
    """The 409 used to recreate S as generation 2 on instance 1 and re-run its calls there while
    instance 0 still ran generation 1."""
    state, history = run(PER_SESSION, BEFORE_REFUSAL + [Reconnect(0, 1)])
    decided = events_of(history, Decided)[-1]
    assert decided.status == 409 and decided.recreated is None and decided.recreates
    assert not events_of(history, Recreated)
    assert state.registry[0][1].generation == 1
    assert state.instances[1].sessions == ()
    _, later = run(PER_SESSION, BEFORE_REFUSAL + [Reconnect(0, 1), Emit(1), Emit(1), Emit(1)])
    assert {e.instance for e in events_of(later, Emitted)} == {0}
    assert all(e.first_execution is None for e in events_of(later, Emitted))


def test_strict_no_longer_loses_a_message_silently_with_per_session_ids():
    """The issue's trace, continued as far as it is still enabled: no silent loss."""
    state, history = run(PER_SESSION, BEFORE_REFUSAL + [
        Reconnect(0, 1), Emit(1), Emit(1), Emit(1), ClientRestart(0), Reconnect(0, 1)])
    report = check_history(history)
    assert report.violations["silent_loss"] == 0 and not report.violated()
    # provenance comes before generation: a per-session counter proves no issuer
    assert report.decisions == {"cursor_unverifiable": 2}


def test_a_per_session_counter_id_never_proves_its_generation():
    """Let another gate recreate S (generation 2 re-issues ids 1, 2, 3), then present the
    persisted cursor 3 of generation 1: the id is found, but strict must not read it as
    generation 2's entry 3 (that resumed after m2 without ever delivering it)."""
    actions = BEFORE_REFUSAL + [(Reconnect(0, 1), "naive"), Disconnect(0), Emit(1), Emit(1),
                                Emit(1), ClientRestart(0)]
    state, history = run(PER_SESSION, actions)
    assert events_of(history, Recreated)[0].generation == 2
    view = build_view(state, PER_SESSION, 1, ResumeRequest(1, 3))
    assert view.cursor.found and view.cursor.owner is None and view.cursor.generation is None
    _, after = run(PER_SESSION, actions + [Reconnect(0, 1)])
    decided = events_of(after, Decided)[-1]
    assert decided.status == 409 and decided.code == "cursor_unverifiable"
    assert check_history(after).violations["silent_loss"] == 0


# Trace 2: local store, shared buffer, round-robin, naive.
LOCAL_STORE = SystemConfig(instances=2, clients=1, messages_per_session=4, messages_per_call=2,
                           store="local", buffer="shared", lb="round_robin")


def test_a_stall_after_a_non_empty_replay_is_counted_when_the_replay_drains():
    actions = [Init(0, 0), Emit(1), Deliver(0), Disconnect(0), Emit(1), Reconnect(0, 1),
               Deliver(0), Emit(1), Emit(1)]
    state, history = run(LOCAL_STORE, actions, "naive")
    decided = events_of(history, Decided)[0]
    assert decided.status == 200 and decided.replayed == 1
    stalls = [(step, e) for step, e in history if type(e) is StreamStalled]
    assert [step for step, _ in stalls] == [6], "counted when the replay is drained"
    assert stalls[0][1].admission == "replay"
    report = check_history(history)
    assert report.violations["stall"] == 1 and report.causes["stall"] == {"replay": 1}
    assert state.clients[0].stream.stalled


def test_a_range_check_compares_with_the_sessions_own_buffer_not_the_lookup():
    """Event-id keyed store, fleet-wide counter: S1's newer cursor is found (in S1's stream)
    but lies above S2's high-water mark. range used to admit it ("within [floor, hwm]") while
    the step said above_hwm."""
    config = SystemConfig(instances=1, clients=2, messages_per_session=3, messages_per_call=1,
                          store="shared", buffer="shared", buffer_keying="event_id",
                          event_ids="global")
    actions = [Init(0, 0), Init(1, 0), Emit(1), Deliver(0), Emit(1), Deliver(0),
               Disconnect(1), ForeignCursor(1, 0), Reconnect(1, 0)]
    _, history = run(config, actions, "range")
    decided = events_of(history, Decided)[-1]
    assert decided.position == "above_hwm"
    assert decided.status == 409 and decided.code == "cursor_ahead"


def test_a_foreign_cursor_byte_identical_to_an_own_id_is_judged_as_that_position():
    """Local store and buffers, per-process counters: c1's priming id on instance 0 equals
    c0's. Presented as a "foreign" cursor it names a position in c1's own stream, so the replay
    that follows is what c1's own cursor would give: not a server-caused foreign-cursor
    duplicate."""
    config = SystemConfig(instances=2, clients=2, messages_per_session=2, messages_per_call=1,
                          store="local", buffer="local", event_ids="global", lb="sticky")
    actions = [Init(0, 0), Init(1, 1), Emit(2), Deliver(1), Disconnect(1),
               ForeignCursor(1, 0), (Reconnect(1, 1), "naive"), Deliver(1)]
    _, history = run(config, actions, "naive")
    assert events_of(history, Decided)[-1].cursor_foreign   # ground truth: c0's cursor
    report = check_history(history)
    assert report.violations["duplicate_delivery"] == 0
    assert report.duplicates_by_cause == {"stale_cursor": 1}


def test_a_recreated_generation_re_running_a_result_is_a_duplicate_execution():
    config = SystemConfig(instances=1, clients=1, messages_per_session=1, messages_per_call=1,
                          store="shared", buffer="shared", event_ids="tagged")
    _, history = run(config, [Init(0, 0), Emit(1), Stop(0), Start(0), Reconnect(0, 0),
                              Emit(1)], "naive")
    report = check_history(history)
    assert report.violations["duplicate_execution"] == 1
    assert report.causes["duplicate_execution"] == {"recreated_generation": 1}
    _, refused = run(config, [Init(0, 0), Emit(1), Stop(0), Start(0), Reconnect(0, 0)])
    assert not events_of(refused, Recreated), "strict refuses: nothing is re-run"
