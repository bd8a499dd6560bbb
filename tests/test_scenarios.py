"""The seed incidents replayed on the model: the verdicts issue 2 names, and their mechanisms."""
import json
from pathlib import Path

import pytest

from model import POLICIES, Code, Effect, admit, reject
from simulations.example_gates import gap_as_404, tagged_strict
from simulations.incidents import record
from simulations.render import narrate
from simulations.scenarios import INCIDENT_ROWS, SCENARIOS
from simulations.script import run_script

ROOT = Path(__file__).resolve().parent.parent


def violations(scenario, policy, **kw):
    return run_script(SCENARIOS[scenario], policy, **kw).report.violated()


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_strict_violates_nothing_in_any_scenario(scenario):
    assert violations(scenario, "strict") == {}


def test_naive_stalls_when_failing_over_to_an_instance_that_knows_nothing():
    run = run_script(SCENARIOS["failover_format_only"], "naive")
    assert run.report.violated() == {"stall": 1}
    assert run.report.effects == {"empty": run.report.resumptions}
    assert run.cut_short, "the client keeps getting the same empty stream"


def test_naive_duplicates_with_a_shared_store_and_local_buffers():
    run = run_script(SCENARIOS["shared_store_local_buffer"], "naive")
    assert run.report.violations["duplicate_delivery"] > 0
    assert run.report.violations["duplicate_side_effect"] > 0
    assert set(run.report.duplicates_by_cause) == {"cross_generation"}


@pytest.mark.parametrize("policy", ["range", "provenance", "naive"])
def test_generation_blind_policies_duplicate_after_a_rolling_restart(policy):
    run = run_script(SCENARIOS["reconnect_after_rolling_restart"], policy)
    assert run.report.violations["duplicate_delivery"] == 6
    assert run.report.violations["duplicate_side_effect"] == 2
    assert run.report.duplicates_by_cause == {"cross_generation": 6}


@pytest.mark.parametrize("policy", ["generation", "strict"])
def test_generation_checks_turn_the_duplicates_into_a_409(policy):
    run = run_script(SCENARIOS["reconnect_after_rolling_restart"], policy)
    assert run.report.decisions == {"generation_mismatch": 1}
    assert run.report.reinits == 1
    # the re-issued call repeats one progress notification: the cost of the refusal (the
    # client re-issued it as told), not a duplicate delivery
    assert run.report.duplicates_by_cause == {"reissued_after_refusal": 1}
    assert run.report.costs["reissue_redelivery"] == 1


def test_generation_leaks_across_sessions_when_the_buffer_is_keyed_by_event_id():
    assert violations("foreign_cursor", "generation") == {"cross_session_delivery": 1,
                                                          "silent_loss": 2}


def test_generation_loses_silently_when_the_buffer_is_keyed_by_session():
    assert violations("foreign_cursor_session_keyed", "generation") == {"silent_loss": 1}


def test_the_foreign_cursor_narrative_says_which_keying_gives_which_violation():
    text = narrate(run_script(SCENARIOS["foreign_cursor"], "generation"))
    assert "keyed by event id" in text and "cross_session_delivery" in text
    text = narrate(run_script(SCENARIOS["foreign_cursor_session_keyed"], "generation"))
    assert "keyed by session" in text and "silent_loss" in text


@pytest.mark.parametrize("scenario", ["reconnect_after_rolling_restart", "failover_format_only",
                                      "shared_store_local_buffer"])
def test_sdk_404s_a_session_the_process_does_not_hold_and_its_client_does_not_reinit(scenario):
    run = run_script(SCENARIOS[scenario], "sdk")
    assert run.client_profile == "sdk-python"
    assert run.report.decisions == {"session_not_found": 1}
    assert run.report.reinits == 0 and run.report.failed_clients == 1
    assert run.report.violated() == {}


def test_sdk_answers_an_evicted_cursor_with_200_empty_and_close():
    run = run_script(SCENARIOS["truncated_buffer_live_session"], "sdk")
    assert set(run.report.effects) == {"empty_close"}
    assert run.report.violated() == {"stall": 1}
    assert run.cut_short


def test_sdk_has_no_provenance_check():
    run = run_script(SCENARIOS["foreign_cursor"], "sdk")
    assert run.report.effects == {"foreign": 1}
    assert run.report.violations["cross_session_delivery"] == 1


def test_truncated_buffer_gap_is_told_not_lost_by_gap_signalling_policies():
    for policy in ("range", "generation", "provenance", "strict"):
        run = run_script(SCENARIOS["truncated_buffer_live_session"], policy)
        assert run.report.violated() == {}, policy
        assert run.report.reinits == 0, policy
    assert violations("truncated_buffer_live_session", "naive") == {"silent_loss": 1}


def test_a_gap_answered_as_404_is_a_needless_reinit():
    run = run_script(SCENARIOS["truncated_buffer_live_session"], gap_as_404)
    assert run.report.violated() == {"needless_reinit": 1}
    assert run.gate.endswith("gap_as_404")


def test_a_users_gate_runs_every_scenario_like_a_named_policy():
    for scenario in SCENARIOS.values():
        run = run_script(scenario, tagged_strict)
        assert run.gate_error == ""
        assert run.report.violations["cross_session_delivery"] == 0


def test_a_gate_that_raises_is_reported_not_a_crash():
    def broken(request, view):
        raise KeyError("oops")
    run = run_script(SCENARIOS["failover_format_only"], broken)
    assert "raised KeyError" in run.gate_error
    assert "GATE ERROR" in narrate(run)


def test_client_dedupe_absorbs_a_replay_of_seen_ids_on_a_live_client():
    run = run_script(SCENARIOS["foreign_cursor_session_keyed"], "naive",
                     client_profile="config", overrides={"client_dedupe": True})
    assert run.report.dedupe_drops == 1 and run.report.violated() == {}


def test_client_dedupe_survives_a_client_restart_but_not_a_new_generation():
    run = run_script(SCENARIOS["reconnect_after_rolling_restart"], "range",
                     client_profile="config", overrides={"client_dedupe": True})
    # the replayed e3, e4 were logged before the restart: dropped; the re-run under generation
    # 2 has new ids (global counter) and gets through
    assert run.report.dedupe_drops == 2
    assert run.report.violations["duplicate_delivery"] == 4


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_runs_are_deterministic(scenario, policy):
    a = run_script(SCENARIOS[scenario], policy)
    b = run_script(SCENARIOS[scenario], policy)
    assert record(a) == record(b) and a.final_state == b.final_state


def test_committed_incident_matrix_matches_a_fresh_run():
    """Back-test: results/incidents/matrix.jsonl is what the current model produces."""
    committed = [json.loads(line) for line in
                 (ROOT / "results/incidents/matrix.jsonl").read_text().splitlines()]
    fresh = [record(run_script(s, p)) for s in SCENARIOS.values() for p in INCIDENT_ROWS]
    assert committed == fresh


def test_readme_shows_the_current_incident_matrix():
    table = (ROOT / "results/incidents/matrix.txt").read_text().strip()
    assert table in (ROOT / "README.md").read_text()


def test_custom_admit_and_reject_gates_drive_the_client_reactions():
    def always_gap(request, view):
        return reject(Code.REPLAY_GAP, "gap", resume_from=None)
    run = run_script(SCENARIOS["truncated_buffer_live_session"], always_gap)
    assert run.report.decisions == {"replay_gap": 1} and run.report.reinits == 1

    def head(request, view):
        return admit(Effect.FROM_HEAD, "head")
    run = run_script(SCENARIOS["reconnect_after_rolling_restart"], head)
    assert "restart_from_head" in run.report.duplicates_by_cause
