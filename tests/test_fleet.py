"""The incident matrix on real processes (`conformance --fleet`): scripted incidents under every
policy in lockstep on real MCP SDK servers behind ResumptionGuard."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conformance_support import require_conformance

from model import POLICIES
from model.history import Primed
from simulations.cli import main
from simulations.conformance.fleet import NOT_RUN, model_run, unsupported
from simulations.scenarios import FLEET_SCENARIOS, SCENARIOS

ROOT = Path(__file__).resolve().parent.parent
#: CI's reduced set: every scenario under the policies that tell the incidents apart
#: (make conformance runs all six)
CI_POLICIES = ("naive", "range", "generation", "strict")


@pytest.fixture(scope="module")
def fleet_run(tmp_path_factory):
    require_conformance(need_nginx=True, servers=("guard",), need_redis=True)
    out = tmp_path_factory.mktemp("fleet")
    argv = [sys.executable, "-m", "simulations", "conformance", "--fleet", "--json",
            "--workers", "3", "--out", str(out)] + [a for p in CI_POLICIES for a in ("--policy", p)]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    return proc, out


def test_every_cell_run_on_the_fleet_agrees_with_the_model_at_every_step(fleet_run):
    proc, out = fleet_run
    rows = json.loads(proc.stdout)["rows"]
    assert [(r["scenario"], r["policy"], r["detail"]) for r in rows if r["status"] != "agrees"] \
        == []
    assert {(r["scenario"], r["policy"]) for r in rows} == \
        {(s, p) for s in FLEET_SCENARIOS for p in CI_POLICIES}
    assert proc.returncode == 0, proc.stderr
    assert (out / "FLEET.md").exists() and (out / "manifest.json").exists()


def test_the_incidents_violations_happen_on_real_processes(fleet_run):
    """Incident B's failover under naive (a silent open stream: a stall) and the truncated
    buffer under naive (replay from the head skips a message: silent loss) on a real fleet; the
    client's own applied messages show it."""
    rows = {(r["scenario"], r["policy"]): r for r in json.loads(fleet_run[0].stdout)["rows"]}
    assert rows[("failover_format_only", "naive")]["model"] == {"stall": 1}
    assert rows[("truncated_buffer_live_session", "naive")]["model"] == {"silent_loss": 1}
    assert "t1:2" not in rows[("truncated_buffer_live_session", "naive")]["applied"]["c0"]
    assert rows[("truncated_buffer_live_session", "strict")]["applied"]["c0"] == \
        ["t1:0", "t1:1", "t1:3", "t1:4", "t1:5"]    # m2 told as lost by the replay_gap
    assert rows[("failover_format_only", "strict")]["model"] == {}
    # an event-id keyed store hands session 1's message to client 1 under naive, not strict
    assert rows[("foreign_cursor", "naive")]["model"]["cross_session_delivery"] == 1
    assert "t1:2" in rows[("foreign_cursor", "naive")]["applied"]["c1"]
    assert not any(label.startswith("t1:")
                   for label in rows[("foreign_cursor", "strict")]["applied"]["c1"])


def test_the_incidents_of_the_seed_documents_happen_on_real_processes(fleet_run):
    """Document 000: a stale persisted cursor after a rolling restart (shared registry and
    buffers in Redis, the session recreated under the same id, ids in range) replays and
    re-runs under range: duplicate side effects; generation and strict refuse (409) and the
    client re-initializes. Document 002's second variant: a Redis registry with local buffers,
    the new holder re-runs the work from e1 under naive: the client applies it twice."""
    rows = {(r["scenario"], r["policy"]): r for r in json.loads(fleet_run[0].stdout)["rows"]}
    rolling = "reconnect_after_rolling_restart"
    assert rows[(rolling, "range")]["model"]["duplicate_side_effect"] > 0
    applied = rows[(rolling, "range")]["applied"]["c0"]
    assert len(applied) > len(set(applied))                     # applied twice, for real
    for policy in ("generation", "strict"):
        assert rows[(rolling, policy)]["model"] == {}
        assert any(label.startswith("t2:") for label in rows[(rolling, policy)]["applied"]["c0"])
    variant = rows[("shared_store_local_buffer", "naive")]
    assert variant["model"]["duplicate_delivery"] > 0
    assert variant["applied"]["c0"].count("t1:0") == 2


def test_every_scenario_is_a_deployment_the_fleet_can_be():
    assert all(unsupported(s.config) is None for s in SCENARIOS.values())
    from model import SystemConfig
    why = unsupported(SystemConfig(buffer="shared", buffer_keying="event_id"))
    assert "event-id keyed store shared by the fleet" in why


def test_the_strict_guard_on_a_redis_fleet_refuses_a_recreation_whichever_instance_answers(
        tmp_path):
    """The fleet guard (StrictResumptionGuard's policy with a Redis registry) with tagged ids:
    the other instance decodes the session's own cursor (its id key is in the registry) and
    answers 409 generation_mismatch, as the model does, instead of calling it foreign."""
    require_conformance(need_nginx=True, servers=("guard",), need_redis=True)
    from simulations.conformance.fleet import AGREES, run_cell
    row = run_cell("shared_store_local_buffer", "strict", tmp_path, {"event_ids": "tagged"})
    assert row.status == AGREES, row.detail
    assert any(label.startswith("t2:") for label in row.applied["c0"])     # re-initialized


def test_nginx_in_the_drill_path_sends_each_request_where_it_was_lined_up(tmp_path):
    """The drills' nginx round-robin, lined up by probes, answers each request from the
    instance named; a request nginx sent elsewhere is caught and named; a stopped instance is
    passed over (no probe loop), and one started again gets requests at once (max_fails=0)."""
    require_conformance(need_nginx=True, servers=("guard",))
    import httpx

    from simulations.conformance.probe import STORED_PREFIX
    from simulations.conformance.processes import Processes
    from simulations.conformance.steering import MAX_PROBES, SteeredNginx

    def get(base: str) -> httpx.Headers:
        return httpx.get(base + STORED_PREFIX + "x", timeout=5.0).headers

    with Processes(tmp_path / "steer") as procs:
        fleet = [procs.server(f"i{i}", capacity=4, kind="guard") for i in range(2)]
        router = SteeredNginx(procs, fleet)
        try:
            for target in (0, 0, 1, 1, 0, 1):
                assert router.wrong_instance(get(router.url(target)), target) is None
            base = router.url(0)
            get(base)                                  # the request lined up for i0
            assert router.wrong_instance(get(base), 0) == \
                "nginx sent it to i1, the scenario to i0"
            fleet[0].stop()
            probes = router.probes
            assert router.wrong_instance(get(router.url(1)), 1) is None
            assert router.probes - probes < MAX_PROBES
            fleet[0].start()
            assert router.wrong_instance(get(router.url(0)), 0) is None
        finally:
            router.close()


def test_a_fleet_drill_killed_with_sigkill_leaves_no_process_behind(tmp_path):
    """SIGKILL the harness mid-drill: its uvicorn servers, nginx (master and worker) and Redis
    all go with it."""
    require_conformance(need_nginx=True, servers=("guard",), need_redis=True)
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs Linux /proc")
    from process_support import survivors_of_a_kill, wait_for_descendants
    proc = subprocess.Popen([sys.executable, "-m", "simulations", "conformance", "--fleet",
                             "--scenario", "reconnect_after_rolling_restart", "--policy",
                             "range", "--logs", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    below = wait_for_descendants(proc.pid, 5, 90)   # redis, two servers, nginx and its worker
    survivors = survivors_of_a_kill(proc, below)
    assert len(below) >= 5, "the drill never started its fleet"
    assert survivors == []


@pytest.mark.parametrize("argv, message", [
    (["--scenario", "foreign_cursor"], "need --fleet"),
    (["--fleet", "--case", "own_cursor"], "--fleet runs the scripted incidents"),
    (["--fleet", "--differential"], "--fleet runs the scripted incidents"),
])
def test_bad_fleet_arguments_exit_2_with_one_line(argv, message, tmp_path, capsys):
    assert main(["conformance", "--out", str(tmp_path / "out")] + argv) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_fleet_without_nginx_is_refused_naming_the_fix(monkeypatch, tmp_path, capsys):
    """nginx is in every drill's path: without it, one line, exit 2, nothing written."""
    from simulations.conformance import nginx
    monkeypatch.setattr(nginx.shutil, "which", lambda name: None)
    monkeypatch.setattr(nginx.os.path, "exists", lambda path: False)
    assert main(["conformance", "--fleet", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "nginx is not installed (Debian: apt-get install nginx-light)" in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_an_unknown_scenario_is_refused_naming_the_valid_ones(capsys):
    assert main(["conformance", "--fleet", "--scenario", "nope"]) == 2
    assert "failover_format_only" in capsys.readouterr().err


@pytest.mark.parametrize("policy, effect", [("naive", "from_head"), ("provenance", "gap")])
def test_the_sdk_primes_every_resumed_stream_it_attaches(policy, effect):
    """Regression (found on the fleet, truncated_buffer_live_session): the Python SDK primes a
    resumed stream after whatever it replayed, not only after a replay; the model queued the
    priming event only for `replay`, so the fleet's from_head and gap streams carried an event
    the model did not have in flight."""
    run = model_run("truncated_buffer_live_session", policy)
    events = [e for r in run.steps for e in r.events]
    decided = next(n for n, e in enumerate(events) if type(e).__name__ == "Decided")
    assert events[decided].effect == effect
    assert any(type(e) is Primed for e in events[decided:])


def test_the_committed_fleet_results_are_what_the_model_says_today():
    from simulations.conformance.fleet_report import load_rows
    rows = load_rows(ROOT / "results" / "conformance" / "fleet")
    assert {(r.scenario, r.policy) for r in rows} == \
        {(s, p) for s in FLEET_SCENARIOS for p in POLICIES}
    for r in rows:
        assert r.status in ("agrees", NOT_RUN), (r.scenario, r.policy, r.detail)
        model = {k: v for k, v in model_run(r.scenario, r.policy).report.violations.items() if v}
        assert r.model == model, (r.scenario, r.policy)


def test_the_readme_shows_the_committed_fleet_table():
    from simulations.conformance.fleet_report import load_rows, table
    assert table(load_rows(ROOT / "results" / "conformance" / "fleet")) in \
        (ROOT / "README.md").read_text()
