"""The discrete-event engine: verdicts, common random numbers, determinism, statistics."""
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from model import COSTS, POLICIES, SERVER_CAUSES, VIOLATIONS
from model.config import EVENT_ID_SCHEMES, ISOLATING_KEYINGS, LB_KINDS, PLACEMENTS
from simulations.des import config as dc
from simulations.des.crosscheck import run_scenario_des
from simulations.des.runner import build_world, run_comparison, run_replication
from simulations.des.stats import per_session_hour, summarize, t_interval, wilson
from simulations.scenarios import INCIDENT_ROWS, SCENARIOS
from simulations.script import run_script

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "simulations/configs/rolling_restart.toml"
NO_FAULTS = ["timing.drop_rate=0", "timing.client_restart_rate=0", "timing.restart_period=0",
             "timing.crash_rate=0", "timing.idle_timeout=1e9", "timing.idle_ttl=1e9",
             "timing.absolute_ttl=1e9"]


def load(*overrides, replications=1, policies=None, seed=None):
    """The default config with overrides; the first of `policies` is the baseline unless
    strict is among them."""
    baseline = None if not policies or "strict" in policies else policies[0]
    return dc.load(DEFAULT, list(overrides), replications=replications, seed=seed,
                   policies=policies, baseline=baseline)


@pytest.mark.parametrize("store, buffer, lb", [("shared", "local", "round_robin"),
                                               ("local", "local", "random"),
                                               ("shared", "shared", "sticky")])
def test_without_faults_no_policy_violates_anything(store, buffer, lb):
    config = load(*NO_FAULTS, "timing.duration=900", f"system.store=\"{store}\"",
                  f"system.buffer=\"{buffer}\"", f"system.lb=\"{lb}\"")
    for policy in POLICIES:
        record = run_replication(config, policy, 0)
        assert record["sessions"] > 50 and record["applied"] > 500
        assert not any(record["violations"].values()), (policy, record["violations"])
        assert record["resumptions"] == 0


def _strict_is_clean(record):
    v = record["violations"]
    server_dups = sum(n for cause, n in record["duplicates_by_cause"].items()
                      if cause in SERVER_CAUSES)
    return v["cross_session_delivery"] == 0 and v["stall"] == 0 and server_dups == 0 \
        and v["duplicate_delivery"] == 0 and v["silent_loss"] == 0


@settings(max_examples=12, deadline=None)
@given(store=st.sampled_from(PLACEMENTS), buffer=st.sampled_from(PLACEMENTS),
       keying=st.sampled_from(ISOLATING_KEYINGS), ids=st.sampled_from(EVENT_ID_SCHEMES),
       lb=st.sampled_from(LB_KINDS), capacity=st.integers(1, 8), dedupe=st.booleans(),
       profile=st.sampled_from(sorted(dc.PROFILES)), seed=st.integers(0, 10_000))
def test_strict_never_leaks_duplicates_or_stalls_in_any_config(store, buffer, keying, ids, lb,
                                                               capacity, dedupe, profile, seed):
    config = load("timing.duration=600", "timing.drop_rate=0.02", "timing.restart_period=120",
                  "timing.crash_rate=0.002", "timing.client_restart_rate=0.005",
                  "timing.idle_ttl=60", f"system.store=\"{store}\"",
                  f"system.buffer=\"{buffer}\"", f"system.buffer_keying=\"{keying}\"",
                  f"system.event_ids=\"{ids}\"", f"system.lb=\"{lb}\"",
                  f"system.buffer_capacity={capacity}",
                  f"system.client_dedupe={'true' if dedupe else 'false'}",
                  "system.messages_per_session=9", f"client.profile=\"{profile}\"",
                  seed=seed)
    record = run_replication(config, "strict", 0)
    assert record["resumptions"] > 0
    assert _strict_is_clean(record), record


def test_streams_keyed_by_request_id_leak_across_sessions_whatever_the_gate():
    """The SDK example store's stream keying mixes sessions: even strict replays another
    session's events (the conformance case same_request_id shows it on the real SDK). With
    tagged ids strict can tell the cursor is S's own and admits it; the shared stream then
    carries the other sessions' events too."""
    config = load("system.store=\"local\"", "system.buffer=\"local\"",
                  "system.buffer_keying=\"request_id\"", "system.event_ids=\"tagged\"",
                  "system.lb=\"sticky\"", "timing.duration=1800", "timing.drop_rate=0.02")
    for policy in ("strict", "sdk"):
        record = run_replication(config, policy, 0)
        assert record["violations"]["cross_session_delivery"] > 0, policy
    isolated = load("system.store=\"local\"", "system.buffer=\"local\"",
                    "system.buffer_keying=\"session\"", "system.event_ids=\"tagged\"",
                    "system.lb=\"sticky\"", "timing.duration=1800", "timing.drop_rate=0.02")
    assert run_replication(isolated, "strict", 0)["violations"]["cross_session_delivery"] == 0


def test_naive_stalls_behind_round_robin_with_a_local_registry():
    config = load("system.store=\"local\"", "timing.duration=1800")
    record = run_replication(config, "naive", 0)
    assert record["violations"]["stall"] > 0 and record["stall_seconds"] > 0


def test_naive_stall_rate_grows_with_restart_frequency():
    """Paired one-sided t-test over 8 replications (same seeds), 99% confidence: restarting
    every 200 s keeps naive's clients stalled for more seconds per session-hour than
    restarting every 1200 s. (Episode counts do not grow: after a restart a naive client's
    stall never ends, so episodes merge into longer ones.)"""
    def stalled(period):
        config = load("system.store=\"local\"", "timing.duration=1800",
                      f"timing.restart_period={period}", replications=8, policies=["naive"])
        return [per_session_hour(r, r["stall_seconds"]) for r in run_comparison(config)]
    frequent, rare = stalled(200), stalled(1200)
    result = sps.ttest_rel(frequent, rare, alternative="greater")
    assert result.pvalue < 0.01, (frequent, rare, result)


def test_same_seed_gives_identical_records():
    config = load("timing.duration=900", replications=2, policies=["naive", "strict"])
    strip = lambda rs: [{k: v for k, v in r.items() if k != "cpu_seconds"} for r in rs]  # noqa
    assert strip(run_comparison(config)) == strip(run_comparison(config))


def test_same_seed_gives_identical_records_in_another_process(tmp_path):
    args = [sys.executable, "-m", "simulations", "run", str(DEFAULT), "--replications", "1",
            "--policies", "strict", "--set", "timing.duration=600", "--json"]
    runs = [subprocess.run(args + ["--out", str(tmp_path / str(i))], cwd=ROOT,
                           capture_output=True, text=True, timeout=300) for i in range(2)]
    records = [json.loads(r.stdout)["records"] for r in runs]
    here = run_replication(load("timing.duration=600", policies=["strict"]), "strict", 0)
    for rs in records:
        assert [{k: v for k, v in r.items() if k != "cpu_seconds"} for r in rs] == \
            [{k: v for k, v in here.items() if k != "cpu_seconds"}]


def test_common_random_numbers_give_every_policy_the_same_arrivals():
    config = load("timing.duration=900", replications=2)
    records = run_comparison(config)
    for r in range(2):
        sessions = {rec["sessions"] for rec in records if rec["replication"] == r}
        assert len(sessions) == 1
    assert len({rec["sessions"] for rec in records}) == 2  # replications differ


def test_memory_stays_flat_over_a_long_run():
    """Departed clients free their slots, expired sessions leave the registry, and the world
    keeps counters, not histories."""
    sizes = []
    for duration in (1800, 7200):
        config = load(f"timing.duration={duration}", "timing.idle_ttl=120")
        world = build_world(config, "strict", np.random.SeedSequence(1))
        world.env.run(until=duration)
        sizes.append((len(world.state.clients), len(world.state.registry),
                      len(world.clients), len(world.created)))
    (c1, r1, p1, t1), (c2, r2, p2, t2) = sizes
    assert c2 < 2 * c1 + 10 and r2 < 2 * r1 + 10 and p2 < 2 * p1 + 10 and t2 < 2 * t1 + 10


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
@pytest.mark.parametrize("policy", INCIDENT_ROWS)
def test_each_incident_has_the_same_verdict_in_the_des_engine(scenario, policy):
    scripted = set(run_script(SCENARIOS[scenario], policy).report.violated())
    world, _ = run_scenario_des(SCENARIOS[scenario], policy)
    assert set(world.monitor.report.violated()) == scripted


def test_wilson_interval_matches_known_values():
    w = wilson(10, 100)
    assert w["p"] == 0.1 and w["lo"] == pytest.approx(0.0552, abs=1e-4)
    assert w["hi"] == pytest.approx(0.1744, abs=1e-4)
    assert wilson(0, 50)["lo"] == pytest.approx(0.0, abs=1e-12)
    assert wilson(0, 50)["hi"] == pytest.approx(0.0713, abs=1e-4)


def test_t_interval_matches_scipy():
    values = [1.0, 2.0, 4.0, 7.0]
    got = t_interval(values)
    lo, hi = sps.t.interval(0.95, 3, loc=3.5, scale=sps.sem(values))
    assert got["lo"] == pytest.approx(lo) and got["hi"] == pytest.approx(hi)
    assert t_interval([5.0])["lo"] is None


def test_paired_differences_are_taken_within_a_replication():
    base = {"policy": "strict", "resumptions": 100, "session_hours": 1.0, "sessions": 10,
            "sessions_failed": 0, "sessions_gave_up": 0, "stall_seconds": 0, "reinits": 0,
            "violations": dict.fromkeys(VIOLATIONS, 0), "costs": dict.fromkeys(COSTS, 0),
            **_COSTS_OF_A_DESIGN}
    base["sessions_affected"] = dict(base["violations"])
    records = []
    for r, dups in enumerate((5, 7, 9)):
        records.append({**base, "replication": r})
        other = {**base, "policy": "naive", "replication": r,
                 "violations": {**base["violations"], "duplicate_delivery": dups}}
        records.append(other)
    summary = summarize(records, "strict")
    paired = summary["naive"]["paired_vs_baseline"]["per_session_hour"]["duplicate_delivery"]
    assert paired["mean"] == pytest.approx(7.0) and paired["n"] == 3
    assert paired["lo"] == pytest.approx(7.0 - sps.t.ppf(0.975, 2) * 2 / 3 ** 0.5)
    assert summary["naive"]["paired_vs_baseline"]["share_of_sessions"]["stall"]["zero"]
    assert "paired_vs_baseline" not in summary["strict"]


#: the request, recovery and memory fields of a record (tests/test_transport_costs.py)
_COSTS_OF_A_DESIGN = {"requests": {"handshake": 2, "call": 8, "resume": 0}, "calls_completed": 8,
                      "recoveries": 0, "recovery_seconds": 0.0,
                      "memory": {"mean": {"entries": 0.0}, "peak": {"entries": 0}}}


def _record(policy, replication, sessions=100, hours=10.0, affected=0, events=0):
    violations = dict.fromkeys(VIOLATIONS, 0)
    violations["stall"] = events
    return {"policy": policy, "replication": replication, "resumptions": 50,
            "session_hours": hours, "sessions": sessions, "sessions_failed": 0,
            "sessions_gave_up": 0, "stall_seconds": 0, "reinits": 0,
            "costs": dict.fromkeys(COSTS, 0), "violations": violations,
            "sessions_affected": {**dict.fromkeys(VIOLATIONS, 0), "stall": affected},
            **_COSTS_OF_A_DESIGN}


def test_a_zero_row_gets_a_positive_one_sided_upper_bound():
    summary = summarize([_record("strict", r) for r in range(10)])
    share = summary["strict"]["share_of_sessions"]["stall"]
    assert share["mean"] == 0 and share["lo"] == 0 and share["zero"]
    assert share["hi"] == pytest.approx(1 - 0.05 ** (1 / 1000))       # Clopper-Pearson, N=1000
    assert 0.0029 < share["hi"] < 0.0031                               # about 3/N
    rate = summary["strict"]["per_session_hour"]["stall"]
    assert rate["hi"] == pytest.approx(-math.log(0.05) / 100.0)       # Poisson, 100 hours
    assert summary["strict"]["per_1000_resumptions"]["stall"]["hi"] > 0


def test_the_interval_comes_from_replication_means_not_pooled_sessions():
    """Clustered replications (10% and 50% of sessions): the t-interval of the replication
    shares is far wider than a Wilson band that pools 1,000 sessions as independent."""
    records = [_record("naive", r, affected=10 if r % 2 else 50, events=1) for r in range(10)]
    share = summarize(records)["naive"]["share_of_sessions"]["stall"]
    values = [0.1 if r % 2 else 0.5 for r in range(10)]
    lo, hi = sps.t.interval(0.95, 9, loc=0.3, scale=sps.sem(values))
    assert share["mean"] == pytest.approx(0.3)
    assert (share["lo"], share["hi"]) == (pytest.approx(lo), pytest.approx(hi))
    pooled = wilson(300, 1000)
    assert share["hi"] - share["lo"] > 3 * (pooled["hi"] - pooled["lo"])


@pytest.mark.parametrize("policy", ["naive", "strict"])
def test_committed_des_results_match_a_fresh_replication(policy):
    """Back-test: replication 0 of the committed default comparison, rerun today."""
    folder = ROOT / "results/runs/rolling_restart"
    committed = [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines()]
    config = dc.load(DEFAULT)
    assert json.loads((folder / "manifest.json").read_text())["config"] == config.as_dict()
    fresh = run_replication(config, policy, 0)
    old = next(r for r in committed if r["policy"] == policy and r["replication"] == 0)
    drop = lambda r: {k: v for k, v in r.items() if k != "cpu_seconds"}  # noqa: E731
    assert drop(fresh) == drop(old)


def test_a_config_round_trips_through_its_dict():
    config = load("system.lb=sticky", "client.profile=\"sdk-python\"", replications=3)
    assert dc.from_mapping(config.as_dict()) == config


def test_a_refusal_never_starts_a_worker_for_a_new_generation():
    """The DES used to start a session worker for every refused resumption (the refusal had
    recreated the session first). Under strict a session's worker starts once, at initialize;
    under naive recreated generations start theirs again."""
    from collections import Counter
    config = load("timing.duration=900", "timing.restart_period=120", "timing.drop_rate=0.01")
    starts = {}
    for policy in ("strict", "naive"):
        world = build_world(config, policy, np.random.SeedSequence(5))
        counts, start = Counter(), world.start_worker

        def counting(token, start=start, counts=counts):
            counts[token] += 1
            start(token)
        world.start_worker = counting
        world.env.run(until=config.timing.duration)
        starts[policy] = counts
    assert starts["strict"] and max(starts["strict"].values()) == 1
    assert max(starts["naive"].values()) > 1


def test_the_typescript_clients_request_timeout_ends_a_silent_stream(monkeypatch):
    """The TypeScript SDK client's call fails 60 s after it began whatever its stream does; the
    DES used to leave such a client waiting on a detached stream (200, attached to nothing, the
    answer to a cursor its store evicted) until something else closed it."""
    import dataclasses

    from simulations import clients
    config = load("system.lb=sticky", "system.buffer_capacity=1", "timing.drop_rate=0.05",
                  "timing.restart_period=0", "timing.idle_timeout=1e9",
                  "client.profile=\"sdk-typescript\"", policies=["sdk-typescript"])
    profile = clients.PROFILES["sdk-typescript"]
    with_timeout = run_replication(config, "sdk-typescript", 0)
    monkeypatch.setitem(clients.PROFILES, "sdk-typescript",
                        dataclasses.replace(profile, request_timeout=None))
    without = run_replication(config, "sdk-typescript", 0)
    assert with_timeout["violations"]["stall"] > 0
    assert with_timeout["stall_seconds_max"] <= profile.request_timeout
    assert without["stall_seconds_max"] > profile.request_timeout
    assert with_timeout["stall_seconds"] < without["stall_seconds"]
