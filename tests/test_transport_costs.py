"""The costs the transports are compared on: requests per completed call, recovery time and the
entries the servers hold, in the DES records, the sweep's named deployments, the figures and
the README's one table from the committed sweep."""
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from simulations.des import config as des_config
from simulations.des import footprint, runner
from simulations.des.runner import build_world, record_of, run_replication
from simulations.des.stats import frame_interval, summarize

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "simulations/configs/rolling_restart.toml"
QUIET = ["timing.drop_rate=0.0", "timing.client_restart_rate=0.0", "timing.restart_period=0.0",
         "timing.idle_timeout=100000.0"]


def _config(*settings, duration=900.0):
    return des_config.load(CONFIG, [f"timing.duration={duration}", *settings])


def _finished(row, settings):
    world = build_world(_config(*settings), row, np.random.SeedSequence(3))
    world.env.run(until=world.config.timing.duration)
    present = len(world.arrived_at)
    world.finish()
    return world, record_of(world, row, 0, 3, 0.0), present


@pytest.mark.parametrize("row", ["strict", "stateless", "stateless+idempotency"])
def test_without_faults_each_call_is_one_post_and_a_session_adds_its_handshake(row):
    """No drop, restart, client restart or LB idle timeout: every initialize is a client's
    first (two handshake requests with sessions, none without), no resumption, and every call
    POST completes except the one in flight of each client still present at the end."""
    world, record, present = _finished(row, QUIET)
    requests = record["requests"]
    assert requests["resume"] == 0
    assert requests["handshake"] == (0 if row.startswith("stateless") else 2 * record["sessions"])
    assert 0 <= requests["call"] - record["calls_completed"] <= present
    assert record["calls_completed"] > 0


def test_faults_cost_requests_resumptions_cost_gets_and_stateless_has_no_handshake():
    _, strict, _ = _finished("strict", [])
    _, stateless, _ = _finished("stateless", [])
    assert strict["requests"]["resume"] == strict["resumptions"] > 0
    assert stateless["requests"]["handshake"] == stateless["requests"]["resume"] == 0
    # every re-issue is one more call POST than the calls completed need
    assert stateless["requests"]["call"] - stateless["calls_completed"] >= \
        stateless["costs"]["reinit"] - stateless["sessions"]


def test_what_the_servers_hold_depends_on_the_design():
    _, strict, _ = _finished("strict", [])
    _, stateless, _ = _finished("stateless", [])
    _, keyed, _ = _finished("stateless+idempotency", [])
    assert strict["memory"]["mean"]["session_records"] > 0
    assert strict["memory"]["mean"]["buffered_events"] > 0
    assert stateless["memory"]["peak"] == dict.fromkeys(footprint.KINDS + ("entries",), 0)
    assert keyed["memory"]["mean"]["execution_records"] > 0
    assert keyed["memory"]["mean"]["session_records"] == 0
    for record in (strict, keyed):
        mean = record["memory"]["mean"]
        assert mean["entries"] == pytest.approx(sum(mean[k] for k in footprint.KINDS))
        assert record["memory"]["peak"]["entries"] >= mean["entries"]


def test_the_memory_sampler_only_reads(monkeypatch):
    """A run with the sampler and one without give the same record (but the memory)."""
    config = _config()
    seed = np.random.SeedSequence(config.seed).spawn(1)[0]
    sampled = run_replication(config, "strict", 0, seed)

    class Silent:
        def __init__(self, world):
            pass

        def summary(self):
            return {}
    monkeypatch.setattr(runner, "MemorySampler", Silent)
    plain = run_replication(config, "strict", 0, seed)
    for record in (sampled, plain):
        record.pop("memory")
        record.pop("cpu_seconds")
    assert sampled == plain


def test_held_counts_each_kind_where_it_lives():
    from model import SystemConfig, initial_state
    from model.entries import Buffer, Entry, Truth
    state = initial_state(SystemConfig(instances=2, clients=1))
    assert footprint.held(state) == dict.fromkeys(footprint.KINDS, 0)
    entry = Entry(1, Truth(0, 1, 0, 0))
    inst = state.instances[0].replace(buffers=((1, Buffer((entry, entry))),), records=((5, 1),))
    state = state.replace(instances=(inst,) + state.instances[1:],
                          buffers=((2, Buffer((entry,))),), records=((7, 2), (8, 2)))
    assert footprint.held(state) == {"session_records": 0, "buffered_events": 3,
                                     "execution_records": 3}


def test_summaries_carry_the_costs_with_replication_intervals():
    config = dataclasses.replace(_config(duration=600.0), replications=3,
                                 policies=("strict", "stateless"))
    records = runner.run_comparison(config)
    summary = summarize(records, "strict")
    for row in ("strict", "stateless"):
        entry = summary[row]
        assert entry["requests_per_completed_call"]["n"] == 3
        assert entry["requests_per_completed_call"]["mean"] >= 1.0
        assert entry["recovery_seconds_mean"]["n"] == 3
        assert set(entry["memory_mean"]) == set(footprint.KINDS) | {"entries"}
    assert summary["stateless"]["memory_mean"]["entries"]["zero"] is True
    assert summary["strict"]["requests_per_completed_call"]["mean"] > \
        summary["stateless"]["requests_per_completed_call"]["mean"]


def test_frame_interval_takes_ratios_within_each_replication():
    import pandas as pd
    group = pd.DataFrame({"a": [1.0, 4.0], "b": [1.0, 0.0], "n": [2.0, 4.0],
                          "sessions": [10, 10], "session_hours": [1.0, 1.0]})
    ratio = frame_interval(group, "ratio", ["a", "b"], "n")
    assert ratio["mean"] == pytest.approx((2 / 2 + 4 / 4) / 2)      # not 6 / 6 pooled
    assert frame_interval(group, "value", ["a"])["mean"] == pytest.approx(2.5)
    empty = frame_interval(group.assign(a=0.0, b=0.0), "ratio", ["a", "b"], "n")
    assert empty["zero"] is True and empty["hi"] is None


def test_named_deployments_are_one_grid_axis_of_bundled_settings():
    from simulations.sweep import spec as sweep_spec
    spec = sweep_spec.load(ROOT / "simulations/sweeps/transports.toml")
    assert spec.grid[0] == ("deployment", ("local", "shared_store", "shared"))
    by_name = {dict(p.values)["deployment"]: p.config.system for p in spec.points}
    assert (by_name["local"].store, by_name["local"].buffer,
            by_name["local"].execution_record) == ("local", "local", "local")
    assert (by_name["shared"].store, by_name["shared"].buffer) == ("shared", "shared")
    assert by_name["shared_store"].buffer == "local"
    assert len(spec.points) == 3 * 3 * 2
    assert spec.as_dict()["deployments"]["local"]["system.store"] == "local"


SWEEP = ROOT / "results/sweeps/transports"


def test_the_committed_sweep_shows_each_design_beside_strict_per_deployment():
    """Never pooled: each deployment has its own rows; the plain stateless transport executes
    calls again where an execution record shared within its TTL does not, and a local record
    is no better than none behind round-robin."""
    import pandas as pd
    frame = pd.read_csv(SWEEP / "results.csv")
    assert set(frame["param.deployment"]) == {"local", "shared_store", "shared"}
    assert set(frame["policy"]) == {"strict", "sdk", "stateless", "stateless+idempotency",
                                    "tasks"}
    judged = frame.groupby(["param.deployment", "policy"])[
        "executions_by_cause.reissued_after_break"].sum()
    assert judged[("shared", "stateless")] > 0
    keyed = frame[frame.policy == "stateless+idempotency"].groupby("param.deployment")[
        ["executions_by_cause.record_elsewhere", "violations.duplicate_execution"]].sum()
    assert keyed.loc["shared", "violations.duplicate_execution"] == 0
    assert keyed.loc["local", "executions_by_cause.record_elsewhere"] > 0
    tasks = frame[frame.policy == "tasks"].groupby("param.deployment")[
        ["violations.duplicate_execution", "sessions_affected.stall", "requests.poll"]].sum()
    assert tasks.loc["shared", "violations.duplicate_execution"] == 0     # a shared task record
    assert tasks.loc["shared", "sessions_affected.stall"] > 0             # orphaned by restarts
    assert tasks.loc["local", "violations.duplicate_execution"] > 0       # polled elsewhere
    assert tasks.loc["local", "sessions_affected.stall"] == 0
    assert (tasks["requests.poll"] > 0).all()
    data = json.loads((SWEEP / "figures/data.json").read_text())
    panels = data["costs"]["timing.restart_period"][0]["panels"]
    assert set(panels) == {"requests_per_call", "recovery_seconds", "entries_held",
                           "entries_peak"}


def test_the_readme_table_is_the_committed_sweep():
    from simulations.readme_blocks import generate
    from simulations.verify.claims import block
    assert block((ROOT / "README.md").read_text(), "transports-sweep") == \
        generate(["transports-sweep"])["transports-sweep"]
