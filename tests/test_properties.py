"""The property checks on hand-built histories: each count, each cause, and the registry."""
import pytest

from model import COSTS, PROPERTIES, SOMETIMES_CHECKS, VIOLATIONS, check_history, duplicate_cause
from model.history import (
    Applied,
    ClientFailed,
    Decided,
    Dropped,
    Emitted,
    GapAccepted,
    Initialized,
    StreamStalled,
)
from model.properties import KINDS, LIVENESS, SAFETY, VERDICT_PROPERTIES


def applied(client=0, owner=0, msg=0, side_effect=False, token=1, generation=1, via="live",
            first=None, admission="replay", client_gen=1, serving_gen=1, foreign=False,
            holes=()):
    first_token, first_generation = first if first else (None, None)
    return Applied(client, 1, owner, msg, side_effect, token, generation, via, first_token,
                   first_generation, admission, client_gen, serving_gen, foreign, holes)


def decided(status=200, code="ok", effect="replay", held=True, known=True, elsewhere=True,
            client=0):
    return Decided(client, 0, 1, 3, "g", status, code, effect, None, known, held, elsewhere,
                   None, 0, "")


def stalled(client=0, admission="replay"):
    return StreamStalled(client, 0, 1, admission)


def emitted(token=1, generation=1, msg=0, side_effect=True, first=None):
    """An emitted result; a re-execution's cause as the sessions model gives it."""
    again = "" if first is None else \
        "recreated_generation" if first[0] == token else "reissued_after_refusal"
    return Emitted(0, token, generation, msg, 0, 5, (), None, True, side_effect, first, again)


@pytest.mark.parametrize("event, cause", [
    (applied(first=(1, 1), via="head"), "restart_from_head"),
    (applied(first=(1, 1), foreign=True), "foreign_cursor"),
    (applied(first=(1, 1), token=2), "reissued_after_refusal"),
    (applied(first=(1, 1), generation=2, serving_gen=2), "cross_generation"),
    (applied(first=(1, 1), client_gen=1, serving_gen=2), "cross_generation"),
    (applied(first=(1, 1)), "stale_cursor"),
])
def test_each_duplicate_is_attributed_to_its_cause(event, cause):
    assert duplicate_cause(event) == cause


def test_only_server_caused_duplicates_are_violations():
    report = check_history([(0, applied(first=(1, 1))),
                            (1, applied(first=(1, 1), token=2, side_effect=True)),
                            (2, applied(first=(1, 1), via="head", side_effect=True))])
    assert report.violations["duplicate_delivery"] == 1
    assert report.violations["duplicate_side_effect"] == 1
    assert report.duplicates_by_cause == {"stale_cursor": 1, "reissued_after_refusal": 1,
                                          "restart_from_head": 1}
    assert report.costs["reissue_redelivery"] == 1


def test_cross_session_delivery_and_silent_loss_are_counted():
    report = check_history([(0, applied(owner=1)), (1, applied(msg=3, holes=(1, 2)))])
    assert report.violated() == {"cross_session_delivery": 1, "silent_loss": 2}


def test_a_stall_is_one_episode_until_the_client_progresses_with_its_duration():
    report = check_history([(0.0, stalled()), (5.0, stalled()),
                            (9.5, applied()), (10.0, stalled(admission="empty_close"))],
                           end_time=12.0)
    assert report.violations["stall"] == 2
    assert report.stall_seconds == 11.5 and report.stall_seconds_max == 9.5
    assert report.stall_episodes_ended == 2
    assert report.causes["stall"] == {"replay": 1, "empty_close": 1}


def test_a_404_is_needless_only_when_this_process_holds_the_session():
    report = check_history([(0, decided(404, "session_not_found", "rejected", held=True)),
                            (1, decided(404, "session_not_found", "rejected", held=False)),
                            (2, decided(404, "session_not_found", "rejected", held=False,
                                        known=False, elsewhere=False))])
    assert report.violations["needless_reinit"] == 1
    assert report.routing_reinits == 1
    assert report.statuses == {404: 3}


def test_counts_of_decisions_reinits_failures_and_drops():
    report = check_history([(0, Initialized(0, 0, 1, 0, False)),
                            (1, decided()), (2, Initialized(0, 1, 2, 3, True)),
                            (3, ClientFailed(0, 400, "cursor_session_mismatch")),
                            (4, Dropped(0, 1, 0, 0, False)), (5, GapAccepted(0, 2, (1,)))])
    assert report.decisions == {"ok": 1} and report.reinits == 1
    assert report.failed_clients == 1 and report.dedupe_drops == 1
    assert set(report.violations) == set(VIOLATIONS) and not report.violated()


def test_a_recreated_generation_re_running_a_call_is_a_duplicate_execution():
    report = check_history([(0, emitted(generation=1)),
                            (1, emitted(generation=2, first=(1, 1))),
                            (2, emitted(token=2, first=(1, 1))),             # a re-issued call
                            (3, emitted(generation=3, side_effect=False, first=(1, 2)))])
    assert report.violations["duplicate_execution"] == 1
    assert report.causes["duplicate_execution"] == {"recreated_generation": 1}
    assert report.costs["reexecuted_call"] == 3
    assert report.causes["reexecuted_call"] == {"recreated_generation": 2,
                                                "reissued_after_refusal": 1}


def test_silent_loss_and_stall_carry_how_the_stream_was_opened():
    report = check_history([(0, applied(msg=2, holes=(0, 1), admission="no_cursor")),
                            (1, stalled(client=1, admission="foreign"))])
    assert report.causes["silent_loss"] == {"no_cursor": 2}
    assert report.causes["stall"] == {"foreign": 1}


def test_the_registry_declares_every_property_once_with_a_kind_and_a_check():
    names = [p.name for p in PROPERTIES]
    assert len(names) == len(set(names))
    assert {p.kind for p in PROPERTIES} == set(KINDS)
    for p in PROPERTIES:
        assert (p.check is not None) != (p.waiting is not None), p.name
        assert p.reads or p.kind == LIVENESS, p.name
    assert set(VIOLATIONS) == {p.name for p in PROPERTIES if p.kind == SAFETY and p.judged}
    assert "duplicate_execution" in VIOLATIONS and "any_duplicate" not in VIOLATIONS
    assert VERDICT_PROPERTIES[-1] == "stall_liveness"
    assert set(COSTS) >= {"refusal", "reinit", "abandoned", "reexecuted_call"}
    assert "lost_session_state" in SOMETIMES_CHECKS
    report = check_history([])
    assert set(report.violations) == set(VIOLATIONS) and set(report.costs) == set(COSTS)


# -- quiet events: the checks they skip could not have hit -------------------------------------
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from model.properties import (  # noqa: E402
    JUDGED_REEXECUTIONS,
    RECOVERY_CAUSES,
    add_hits,
    hits_of,
    quiet,
)

_small = st.integers(0, 3)
_maybe = st.none() | _small
_wire = st.one_of(_small, st.just("u1"), st.tuples(_small, _small))
_applied_events = st.builds(
    Applied, client=_small, wire=_wire, owner=_maybe, msg=_small, side_effect=st.booleans(),
    token=_small, generation=_small,
    via=st.sampled_from(["live", "replay", "head", "shared", "foreign", "recorded", "task"]),
    first_token=_maybe, first_generation=_maybe,
    admission=st.sampled_from(["replay", "head", "fresh", "request", "poll"]),
    client_gen=_maybe, serving_gen=_maybe, cursor_foreign=st.booleans(),
    holes=st.lists(_small, max_size=2).map(tuple))
_emitted_events = st.builds(
    Emitted, instance=_small, token=_small, generation=_small, msg=_small, owner=_small,
    wire=_wire, live_to=st.lists(_small, max_size=2).map(tuple), dropped=st.none() | _wire,
    result=st.booleans(), side_effect=st.booleans(),
    first_execution=st.none() | st.tuples(_small, _small),
    reexecution=st.sampled_from(("",) + JUDGED_REEXECUTIONS + RECOVERY_CAUSES),
    recorded=st.booleans())


@given(st.one_of(_applied_events, _emitted_events))
def test_no_check_hits_a_quiet_event(event):
    """Every property reading Applied or Emitted (any kind: safety, sometimes, cost) finds
    nothing in an event `quiet` clears, so skipping its checks changes nothing; and quiet events
    exist (a run is mostly made of them)."""
    readers = [p for p in PROPERTIES if type(event) in p.reads]
    assert readers
    if quiet(event):
        assert [p.name for p in readers if p.check(event) is not None] == []
        assert hits_of(event) == []


@given(st.lists(st.one_of(_applied_events, _emitted_events), max_size=4))
def test_a_transitions_hits_gathered_in_one_list_are_each_events_in_turn(events):
    """`add_hits` appends to the list it is given what `hits_of` returns, event by event (the
    explorer gathers a transition's hits so), and each hit is one of the event's checks'."""
    gathered: list = []
    for event in events:
        add_hits(event, gathered)
    assert gathered == [pair for event in events for pair in hits_of(event)]
    for prop, hit in gathered:
        assert any(type(event) in prop.reads and prop.check(event) == hit for event in events)


def test_quiet_clears_the_plain_deliveries_and_emissions_only():
    assert quiet(applied())
    assert not quiet(applied(first=(1, 1)))              # a duplicate
    assert not quiet(applied(owner=1))                   # another client's message
    assert not quiet(applied(holes=(0,)))                # a skipped message
    plain = Emitted(0, 1, 1, 0, 0, 1, (), None)
    assert quiet(plain)
    assert not quiet(Emitted(0, 1, 1, 0, 0, 1, (), 0))   # an id dropped from the buffer
    assert not quiet(Emitted(0, 1, 1, 0, 0, 1, (), None, True, True, (1, 1), "record_gone"))
    assert not quiet(decided())                          # every resumption is a situation
