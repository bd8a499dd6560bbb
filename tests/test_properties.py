"""The §4 property checks on hand-built histories: each count and each duplicate's cause."""
import pytest

from model import VIOLATIONS, check_history, duplicate_cause
from model.history import Applied, ClientFailed, Decided, Dropped, GapAccepted, Initialized


def applied(client=0, owner=0, msg=0, side_effect=False, token=1, generation=1, via="live",
            first=None, stream_kind="resume", client_gen=1, serving_gen=1, foreign=False,
            holes=()):
    first_token, first_generation = first if first else (None, None)
    return Applied(client, 1, owner, msg, side_effect, token, generation, via, first_token,
                   first_generation, stream_kind, client_gen, serving_gen, foreign, holes)


def decided(status=200, code="ok", effect="replay", held=True, known=True, elsewhere=True,
            dead=False, client=0):
    return Decided(client, 0, 1, 3, "g", status, code, effect, None, known, held, elsewhere,
                   None, 0, dead, "")


@pytest.mark.parametrize("event, cause", [
    (applied(first=(1, 1), via="head"), "restart_from_head"),
    (applied(first=(1, 1), foreign=True), "foreign_cursor"),
    (applied(first=(1, 1), token=2), "reissued_request"),
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
    assert report.duplicates_by_cause == {"stale_cursor": 1, "reissued_request": 1,
                                          "restart_from_head": 1}


def test_cross_session_delivery_and_silent_loss_are_counted():
    report = check_history([(0, applied(owner=1)), (1, applied(msg=3, holes=(1, 2)))])
    assert report.violated() == {"cross_session_delivery": 1, "silent_loss": 2}


def test_a_stall_is_one_episode_until_the_client_progresses_with_its_duration():
    report = check_history([(0.0, decided(dead=True)), (5.0, decided(dead=True)),
                            (9.5, applied()), (10.0, decided(dead=True))], end_time=12.0)
    assert report.violations["stall"] == 2
    assert report.stall_seconds == 11.5 and report.stall_seconds_max == 9.5
    assert report.stall_episodes_ended == 2


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
