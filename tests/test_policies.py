"""Properties of the resumption policies, over arbitrary views."""
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import SESSION, sample_request_view, views

from model import POLICIES, Code, Decision, Effect, GateError, admit, decide, reject, resolve_gate
from model.protocol import check_decision
from model.view import ABOVE_HWM, AT_FLOOR, BELOW_FLOOR, IN_BUFFER, IN_RANGE, NO_CURSOR

REPLAYABLE = (IN_BUFFER, AT_FLOOR, IN_RANGE)


@given(views(), st.sampled_from(sorted(POLICIES)))
def test_every_policy_returns_a_well_formed_decision(request_view, name):
    request, view = request_view
    decision = decide(resolve_gate(name), request, view)
    assert check_decision(decision) is None


def _first_failure(view):
    """The condition that fails first, in order: liveness, provenance, generation,
    reachability; None if all hold."""
    c = view.cursor
    if not view.registry_has_session:
        return "liveness"
    if c.position == NO_CURSOR:  # a new stream, unless serving it recreates lost state
        return "generation" if view.recreates else None
    if c.owner is None or c.owner != SESSION:
        return "provenance"
    if view.recreates or c.generation != view.generation:
        return "generation"
    if c.position not in REPLAYABLE:
        return "reachability"
    return None


EXPECTED_CODES = {
    "liveness": {Code.SESSION_NOT_FOUND},
    "provenance": {Code.CURSOR_SESSION_MISMATCH, Code.CURSOR_UNVERIFIABLE},
    "generation": {Code.GENERATION_MISMATCH},
    "reachability": {Code.REPLAY_GAP, Code.CURSOR_AHEAD},
}


@given(views())
def test_strict_answers_the_first_failing_condition_in_order(request_view):
    request, view = request_view
    decision = POLICIES["strict"](request, view)
    failure = _first_failure(view)
    if failure is None:
        assert decision.admitted
    else:
        assert not decision.admitted, f"{failure} failed but strict answered 200"
        assert decision.code in EXPECTED_CODES[failure]


@given(views())
def test_strict_never_clamps_restarts_from_head_or_replays_another_session(request_view):
    request, view = request_view
    decision = POLICIES["strict"](request, view)
    assert decision.effect not in (Effect.CLAMPED, Effect.FROM_HEAD, Effect.FOREIGN,
                                   Effect.EMPTY_CLOSE)


@given(views())
def test_strict_distinguishes_unknown_session_from_foreign_cursor(request_view):
    request, view = request_view
    decision = POLICIES["strict"](request, view)
    if view.registry_has_session and view.cursor.owner not in (None, SESSION):
        assert decision.status == 400 and decision.code is Code.CURSOR_SESSION_MISMATCH


@given(views())
def test_strict_gap_on_a_live_session_is_never_a_404(request_view):
    request, view = request_view
    decision = POLICIES["strict"](request, view)
    if view.registry_has_session:
        assert decision.status != 404


@given(views())
def test_naive_always_admits(request_view):
    request, view = request_view
    assert POLICIES["naive"](request, view).status == 200


@given(views())
def test_sdk_404s_exactly_when_the_process_does_not_hold_the_session(request_view):
    request, view = request_view
    decision = POLICIES["sdk"](request, view)
    assert (decision.status == 404) == (not view.held_locally)
    if view.held_locally and view.cursor.wire is not None and not view.cursor.found:
        assert decision.status == 200 and decision.effect is Effect.EMPTY_CLOSE


@given(views())
def test_sdk_never_checks_provenance(request_view):
    request, view = request_view
    decision = POLICIES["sdk"](request, view)
    assert decision.code is not Code.CURSOR_SESSION_MISMATCH


@given(views())
def test_generation_policy_rejects_every_cross_generation_cursor(request_view):
    request, view = request_view
    decision = POLICIES["generation"](request, view)
    c = view.cursor
    crossed = view.recreates or (c.generation is not None and c.generation != view.generation)
    if view.registry_has_session and c.position != NO_CURSOR and crossed:
        assert decision.code is Code.GENERATION_MISMATCH


@given(views())
def test_range_and_generation_never_check_provenance(request_view):
    request, view = request_view
    for name in ("range", "generation"):
        assert POLICIES[name](request, view).code is not Code.CURSOR_SESSION_MISMATCH


@given(views())
def test_foreign_effect_only_when_the_lookup_found_another_sessions_stream(request_view):
    request, view = request_view
    for name, policy in POLICIES.items():
        decision = policy(request, view)
        if decision.effect is Effect.FOREIGN:
            assert view.cursor.found and view.cursor.owner != SESSION, name


@given(views())
def test_provenance_signals_a_gap_on_a_live_session(request_view):
    request, view = request_view
    decision = POLICIES["provenance"](request, view)
    c = view.cursor
    if view.registry_has_session and c.owner == SESSION and c.position == BELOW_FLOOR:
        assert decision.status == 200 and decision.effect is Effect.GAP


@given(views())
def test_no_named_policy_clamps_except_provenance_above_hwm(request_view):
    request, view = request_view
    for name, policy in POLICIES.items():
        if policy(request, view).effect is Effect.CLAMPED:
            assert name == "provenance" and view.cursor.position == ABOVE_HWM


def test_a_user_callable_works_like_a_named_policy():
    def always_gap(request, view):
        return reject(Code.REPLAY_GAP, "mine", resume_from=None)
    gate = resolve_gate(always_gap)
    assert gate.name.endswith("always_gap")
    request, view = sample_request_view()
    assert decide(gate, request, view).code is Code.REPLAY_GAP


def test_unknown_policy_name_lists_the_valid_ones():
    with pytest.raises(ValueError, match="valid: naive, range, generation, provenance"):
        resolve_gate("nope")


@pytest.mark.parametrize("bad, problem", [
    (lambda r, v: 1 / 0, "raised ZeroDivisionError"),
    (lambda r, v: "200", "returned str"),
    (lambda r, v: Decision(200, Code.SESSION_NOT_FOUND, Effect.REPLAY), "status 200, code OK"),
    (lambda r, v: Decision(404, Code.OK, Effect.REJECTED), "status 200, code OK"),
])
def test_a_broken_gate_becomes_a_gate_error_naming_it(bad, problem):
    request, view = sample_request_view()
    with pytest.raises(GateError, match=problem):
        decide(resolve_gate(bad), request, view)


def test_decision_helpers_keep_status_code_and_effect_consistent():
    assert admit(Effect.REPLAY) == Decision(200, Code.OK, Effect.REPLAY)
    assert reject(Code.GENERATION_MISMATCH).status == 409
    assert reject(Code.CURSOR_SESSION_MISMATCH).status == 400
    assert reject(Code.SESSION_NOT_FOUND).status == 404
    with pytest.raises(ValueError):
        admit(Effect.REJECTED)
    with pytest.raises(ValueError):
        reject(Code.OK)


@given(views())
def test_strict_never_admits_a_request_that_recreates_the_session(request_view):
    """A refusal never creates server state, and strict never admits into recreated state
    (the new generation would re-run calls the old one may have executed)."""
    request, view = request_view
    decision = POLICIES["strict"](request, view)
    if view.recreates:
        assert not decision.admitted


@given(views())
def test_strict_refuses_a_cursor_whose_issuer_the_id_cannot_prove(request_view):
    request, view = request_view
    decision = POLICIES["strict"](request, view)
    if view.registry_has_session and view.cursor.position != NO_CURSOR and \
            view.cursor.owner is None:
        assert decision.code is Code.CURSOR_UNVERIFIABLE and decision.status == 409


@given(views())
def test_range_compares_the_cursor_with_the_sessions_own_floor_and_hwm(request_view):
    """A cursor found in some other stream of an id-keyed store is not in S's range."""
    request, view = request_view
    decision = POLICIES["range"](request, view)
    if view.registry_has_session and view.cursor.position not in REPLAYABLE + (NO_CURSOR,):
        assert not decision.admitted
