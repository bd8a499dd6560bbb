"""`python -m simulations run` and `bench` as a user runs them, bad configs included."""
import json
from pathlib import Path

import pytest

from model import VIOLATIONS
from simulations.cli import main

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = str(ROOT / "simulations/configs/rolling_restart.toml")
SHORT = ["--set", "timing.duration=300", "--replications", "2"]


def test_run_prints_a_table_and_writes_records_summary_and_manifest(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", DEFAULT, *SHORT, "--policies", "naive,strict", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Sessions that met each violation: % of sessions" in text
    assert "Paired difference against strict" in text and "Cost of safety" in text
    assert "Conditional on resuming: events per 1,000 resumptions" in text
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert [(r["policy"], r["replication"]) for r in records] == \
        [("naive", 0), ("strict", 0), ("naive", 1), ("strict", 1)]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["timing"]["duration"] == 300
    assert [s["replication"] for s in manifest["seeds"]] == [0, 1]
    assert manifest["seeds"][0]["entropy"] == 20261130
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["summary"]) == {"naive", "strict"}


def test_run_json_carries_the_same_numbers(tmp_path, capsys):
    assert main(["run", DEFAULT, *SHORT, "--policies", "strict", "--json",
                 "--out", str(tmp_path / "o")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["strict"]["replications"] == 2 and len(data["records"]) == 2
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["summary"] == \
        data["summary"]


def test_run_json_gives_every_property_per_session_hour_and_as_a_share_with_its_client(
        tmp_path, capsys):
    assert main(["run", DEFAULT, *SHORT, "--policies", "naive,sdk,sdk+spec", "--baseline",
                 "sdk", "--json", "--out", str(tmp_path / "o")]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert {p: s["client_profile"] for p, s in summary.items()} == \
        {"naive": "spec", "sdk": "sdk-python", "sdk+spec": "spec"}
    for entry in summary.values():
        for name in VIOLATIONS:
            for kind in ("per_session_hour", "share_of_sessions"):
                interval = entry[kind][name]
                assert {"mean", "lo", "hi"} <= set(interval)
                if interval["zero"]:
                    assert interval["mean"] == 0 and interval["hi"] > 0
                else:
                    assert interval["lo"] <= interval["mean"] <= interval["hi"]
    # the SDK as deployed gives up on a 404; the idealized SDK (spec client) re-initializes
    assert summary["sdk"]["costs_per_session_hour"]["reinit"]["mean"] == 0


def test_precision_adds_replications_until_met_or_capped(tmp_path, capsys):
    assert main(["run", DEFAULT, "--set", "timing.duration=200", "--replications", "2",
                 "--policies", "strict", "--precision", "0.5", "--json",
                 "--out", str(tmp_path / "met")]) == 0
    met = json.loads(capsys.readouterr().out)["precision"]
    assert met["met"] and met["rounds"] == [2]
    assert main(["run", DEFAULT, "--set", "timing.duration=200", "--replications", "2",
                 "--policies", "naive", "--baseline", "naive", "--precision", "0.0001",
                 "--max-replications", "4", "--json", "--out", str(tmp_path / "capped")]) == 0
    data = json.loads(capsys.readouterr().out)
    capped = data["precision"]
    assert not capped["met"] and capped["rounds"] == [2, 4] and capped["unmet"]["naive"]
    assert sorted({r["replication"] for r in data["records"]}) == [0, 1, 2, 3]
    # the first two replications are the ones a plain 2-replication run gives
    assert main(["run", DEFAULT, "--set", "timing.duration=200", "--replications", "2",
                 "--policies", "naive", "--baseline", "naive", "--json",
                 "--out", str(tmp_path / "plain")]) == 0
    plain = json.loads(capsys.readouterr().out)["records"]
    strip = lambda r: {k: v for k, v in r.items() if k != "cpu_seconds"}  # noqa: E731
    assert [strip(r) for r in data["records"][:2]] == [strip(r) for r in plain]


def test_replications_on_two_workers_give_the_same_records_and_summary(tmp_path, capsys):
    """Workers change where a replication runs, not what it gives, also when --precision
    adds replications (each round's replications side by side)."""
    found = {}
    for workers in ("1", "2"):
        assert main(["run", DEFAULT, "--set", "timing.duration=200", "--replications", "2",
                     "--policies", "naive,strict", "--precision", "0.0001",
                     "--max-replications", "4", "--workers", workers, "--json",
                     "--out", str(tmp_path / workers)]) == 0
        data = json.loads(capsys.readouterr().out)
        found[workers] = ([{k: v for k, v in r.items() if k != "cpu_seconds"}
                           for r in data["records"]], data["summary"], data["precision"])
        assert [(r["policy"], r["replication"]) for r in data["records"]][:3] == \
            [("naive", 0), ("strict", 0), ("naive", 1)]
    assert found["1"] == found["2"]
    assert (tmp_path / "1" / "records.jsonl").read_text() == \
        (tmp_path / "2" / "records.jsonl").read_text()


@pytest.mark.parametrize("args, message", [
    (["--set", "timing.restart_perod=3"], "timing.restart_perod': unknown key"),
    (["--set", "system.instances=\"three\""], "system.instances': expected an integer"),
    (["--set", "timing.drop_rate=-0.1"], "timing.drop_rate': must be >= 0"),
    (["--set", "system.buffer_capacity=0"], "system.buffer_capacity': must be >= 1"),
    (["--policies", "naive,bogus"], "unknown policy 'bogus'"),
    (["--policies", "sdk+sdk-go"], "unknown client profile 'sdk-go'"),
    (["--policies", " , "], "--policies ' , ': names no policy"),
    (["--precision", "2"], "--precision: a half-width of a share"),
    (["--set", "system.lb=magic"], "system.lb': must be one of round_robin"),
    (["--set", "client.profile=\"sdk-go\""], "client.profile': unknown client profile 'sdk-go'"),
    (["--set", "nosection.x=1"], "'nosection': unknown section"),
    (["--set", "timing.duration"], "--set expects section.key=value"),
    (["--set", "system.on_404=\"fail\""], "is set by client.profile"),
    (["--replications", "0"], "run.replications': expected an integer >= 1"),
])
def test_bad_configs_are_one_line_exit_2_and_write_nothing(tmp_path, capsys, args, message):
    out = tmp_path / "out"
    assert main(["run", DEFAULT, *args, "--out", str(out)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert captured.out == "" and len(lines) == 1 and message in lines[0]
    assert not out.exists()


def test_a_missing_or_broken_config_file_is_named(tmp_path, capsys):
    assert main(["run", str(tmp_path / "nope.toml")]) == 2
    assert "no such config file" in capsys.readouterr().err
    broken = tmp_path / "broken.toml"
    broken.write_text("[timing\nduration = 1")
    assert main(["run", str(broken)]) == 2
    assert "not valid TOML" in capsys.readouterr().err


def test_bench_des_prints_the_figures_and_their_ratio(capsys):
    assert main(["bench", "des", "--duration", "120", "--repeats", "3", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["transitions"] > 0 and figures["timeouts_per_cpu_s"] > 0
    # the yardstick runs either side of the engine: its rate is their mean
    assert figures["timeouts_per_cpu_s"] == pytest.approx(sum(figures["timeouts_either_side"]) / 2)
    assert figures["ratio"] == pytest.approx(
        figures["transitions_per_cpu_s"] / figures["timeouts_per_cpu_s"])
    # the figures are those of the back-to-back pair with the median ratio
    assert figures["repeats"] == 3 and len(figures["ratios"]) == 3
    assert round(figures["ratio"], 4) == sorted(figures["ratios"])[1]
    # the ceiling: the replication's own transitions through model.apply alone
    assert figures["recorded_transitions"] == figures["transitions"]
    assert figures["ceiling_ratio"] == pytest.approx(
        figures["apply_transitions_per_s"] / figures["timeouts_per_cpu_s"])
    # which builds ran: the model's and the DES's own group
    import model
    import simulations.des
    assert (figures["model"], figures["engine"]) == (model.BUILD, simulations.des.BUILD)


def test_the_ceilings_drive_the_model_over_the_engines_own_work():
    """The model-only search reaches exactly the explorer's states (those of the search that
    visits every state: no subsumption), and the recorded
    replication holds exactly the transitions the DES applied."""
    from simulations.bench import DEFAULT_CONFIG
    from simulations.ceilings import model_bfs, recorded_replication
    from simulations.des import config as des_config
    from simulations.des.runner import run_replication
    from simulations.explore.scope import Scope, default_system
    from simulations.explore.search import explore
    two = default_system().replace(instances=2, lb="round_robin")
    for scope in (Scope(), Scope(compactions=0, foreign_cursors=0, client_restarts=0,
                                 system=two)):
        assert model_bfs(scope, "range")[0] == \
            explore(scope, "range", subsumption=False).states
    config = des_config.load(DEFAULT_CONFIG, ["timing.duration=300"], replications=1,
                             policies=["strict"], baseline="strict")
    log, _, _ = recorded_replication(config, "strict", 0)
    assert len(log) == run_replication(config, "strict", 0)["transitions"]


def test_the_median_pair_is_the_lower_middle_of_the_ratios():
    from simulations.bench import median_pair
    pairs = [{"ratio": r, "rate": r * 10} for r in (0.3, 0.1, 0.4, 0.2)]
    chosen = median_pair(pairs)
    assert chosen["ratio"] == 0.2 and chosen["rate"] == 2.0
    assert chosen["ratios"] == [0.3, 0.1, 0.4, 0.2] and chosen["repeats"] == 4


def test_unknown_benchmark_is_a_usage_error(capsys):
    assert main(["bench", "nothing"]) == 2
    assert "unknown benchmark 'nothing'; valid: des, explore, sweep" in capsys.readouterr().err
