"""Sweeps: local and Dask runs agree, SIGKILL then resume equals an uninterrupted run, bad specs."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from process_support import kill_after_files

from simulations.cli import main
from simulations.sweep.results import load_results

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "simulations/sweeps/smoke.toml"


def sweep(spec, out, *extra, timeout=600):
    return subprocess.run([sys.executable, "-m", "simulations", "sweep", str(spec), "--out",
                           str(out), "--quiet", *extra], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("local")
    result = sweep(SMOKE, out, "--workers", "2")
    assert result.returncode == 0, result.stderr
    return out


def test_a_sweep_writes_tidy_rows_and_a_manifest(local_run):
    frame = load_results(local_run)
    assert len(frame) == 2 * 2 * 2
    assert set(frame["policy"]) == {"naive", "strict"}
    assert sorted(frame["param.timing.restart_period"].unique()) == [120.0, 600.0]
    assert (frame.loc[frame.policy == "strict", "violations.duplicate_delivery"] == 0).all()
    manifest = frame.attrs["manifest"]
    assert manifest["config"]["grid"] == {"timing.restart_period": [120.0, 600.0]}
    assert {"commit", "dirty"} <= set(manifest["code"]) and "timings" not in manifest
    assert json.loads((local_run / "timings.json").read_text())["runs"] == 8
    # common random numbers: the same arrivals for both policies at a point and replication
    sessions = frame.groupby(["param.timing.restart_period", "replication"])["sessions"].nunique()
    assert (sessions == 1).all()


def test_a_rerun_skips_finished_runs(local_run, tmp_path):
    result = sweep(SMOKE, local_run)
    assert result.returncode == 0 and "0 run(s) now, 8 already done" in result.stdout


def test_sigkill_mid_sweep_then_resume_equals_an_uninterrupted_run(local_run, tmp_path):
    spec = tmp_path / "longer.toml"
    spec.write_text(SMOKE.read_text().replace('"timing.duration" = 300.0',
                                              '"timing.duration" = 900.0')
                    .replace("replications = 2", "replications = 6")
                    .replace('base = "../configs/', f'base = "{ROOT}/simulations/configs/'))
    whole, broken = tmp_path / "whole", tmp_path / "broken"
    assert sweep(spec, whole, "--workers", "2").returncode == 0
    done = kill_after_files([sys.executable, "-m", "simulations", "sweep", str(spec), "--out",
                             str(broken), "--quiet", "--workers", "2"], broken / "runs", 5)
    assert 0 < done < 24, done
    assert not (broken / "results.csv").exists()
    for path in (broken / "runs").glob("*.json"):
        json.loads(path.read_text())  # every run file left behind is complete
    resumed = sweep(spec, broken, "--workers", "2")
    assert resumed.returncode == 0 and f"{done} already done" in resumed.stdout
    assert (broken / "results.csv").read_bytes() == (whole / "results.csv").read_bytes()


def test_a_dask_cluster_gives_the_same_results_as_local_processes(dask_cluster, local_run,
                                                                   tmp_path):
    result = sweep(SMOKE, tmp_path / "dask", "--scheduler", dask_cluster)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "dask" / "results.csv").read_bytes() == \
        (local_run / "results.csv").read_bytes()
    assert json.loads((tmp_path / "dask" / "timings.json").read_text())[
        "scheduler"] == dask_cluster
    # the manifest says what the results are, not how long they took: equal on both executors
    strip = lambda m: {k: v for k, v in m.items() if k not in ("host", "argv")}  # noqa: E731
    assert strip(json.loads((tmp_path / "dask" / "manifest.json").read_text())) == \
        strip(json.loads((local_run / "manifest.json").read_text()))


@pytest.mark.parametrize("body, message", [
    ('base = "../configs/rolling_restart.toml"\n[grid]\n', "the grid is empty"),
    ('base = "../configs/rolling_restart.toml"\n[grid]\n"timing.restart_perod" = [1.0]\n',
     "'timing.restart_perod': unknown key"),
    ('base = "../configs/rolling_restart.toml"\n[grid]\n"system.instances" = ["three"]\n',
     "'system.instances': expected an integer"),
    ('base = "../configs/rolling_restart.toml"\nreplications = 0\n[grid]\n'
     '"timing.drop_rate" = [0.1]\n', "'replications': expected an integer >= 1"),
    ('base = "../configs/rolling_restart.toml"\npolicies = ["fast"]\n[grid]\n'
     '"timing.drop_rate" = [0.1]\n', "'policies'"),
    ('bogus = 1\n', "'bogus': unknown key in the sweep spec"),
])
def test_bad_specs_are_one_line_exit_2_and_write_nothing(tmp_path, capsys, body, message):
    spec = ROOT / "simulations/sweeps" / f"_bad_{os.getpid()}.toml"
    spec.write_text(body)
    try:
        assert main(["sweep", str(spec), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    finally:
        spec.unlink()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert not (tmp_path / "out").exists()


def test_figures_plot_replication_means_per_grid_point_never_pooled(local_run):
    from simulations.figures import make_figures
    made = make_figures(local_run)
    frame = load_results(local_run)
    figures = made["data"]["rates"]["timing.restart_period"]
    assert [f["facet"] for f in figures] == [{}]      # the smoke grid has one parameter
    panels = figures[0]["panels"]
    assert set(panels) == {"duplicate_delivery", "duplicate_execution", "stall", "abandoned",
                           "reinits", "reexecutions"}
    costs = made["data"]["costs"]["timing.restart_period"][0]["panels"]
    for policy, points in costs["requests_per_call"]["points"].items():
        for point in points:        # per replication, then averaged: never pooled
            rows = frame[(frame.policy == policy) &
                         (frame["param.timing.restart_period"] == point["x"])]
            ratios = rows[["requests.handshake", "requests.call", "requests.resume"]].sum(
                axis=1) / rows["calls_completed"]
            assert point["mean"] == pytest.approx(ratios.mean()) and point["n"] == len(rows)
    for name in ("duplicate_delivery", "stall"):
        for policy, points in panels[name]["points"].items():
            for point in points:
                rows = frame[(frame.policy == policy) &
                             (frame["param.timing.restart_period"] == point["x"])]
                shares = rows[f"sessions_affected.{name}"] / rows["sessions"]
                assert point["n"] == len(rows)
                assert point["mean"] == pytest.approx(shares.mean())
                if point["zero"]:
                    assert point["hi"] > 0 and policy in panels[name]["zero_everywhere"] \
                        or not all(p["zero"] for p in points)
                elif point["lo"] is not None:
                    assert point["lo"] <= point["mean"] <= point["hi"]
    cdf = made["data"]["cdf"]["recovery_histogram"]["points"]
    assert len(cdf) == frame["param.timing.restart_period"].nunique()
    names = {Path(p).name for p in made["files"]}
    assert {"rates_by_timing_restart_period.png", "rates_by_timing_restart_period.svg",
            "costs_by_timing_restart_period.png", "stall_cdf.png", "recovery_cdf.svg"} <= names
    assert made["data"]["manifest_sha256"] in (local_run / "figures" / "stall_cdf.svg").read_text()


def test_figures_of_a_folder_without_results_is_a_usage_error(tmp_path, capsys):
    assert main(["figures", str(tmp_path)]) == 2
    assert "the manifest is missing" in capsys.readouterr().err


def test_sweep_precision_doubles_replications_until_met_or_capped(tmp_path, capsys):
    spec = tmp_path / "tiny.toml"
    spec.write_text(f'base = "{ROOT / "simulations/configs/rolling_restart.toml"}"\n'
                    'policies = ["naive"]\nreplications = 1\nseed = 3\n'
                    '[set]\n"timing.duration" = 120.0\n[grid]\n"timing.restart_period" = [60.0]\n')
    assert main(["sweep", str(spec), "--out", str(tmp_path / "s"), "--quiet",
                 "--precision", "0.0001", "--max-replications", "4"]) == 0
    out = capsys.readouterr().out
    assert "NOT MET at the cap of 4 replications" in out
    frame = load_results(tmp_path / "s")
    assert sorted(frame.replication) == [0, 1, 2, 3]
    report = frame.attrs["manifest"]["precision"]
    assert report["rounds"] == [1, 2, 4] and not report["met"] and report["unmet"]
    assert main(["sweep", str(spec), "--out", str(tmp_path / "t"), "--quiet",
                 "--precision", "2"]) == 2
    assert "--precision: a half-width of a share" in capsys.readouterr().err


def test_run_keys_survive_a_commit_made_during_a_sweep(tmp_path, monkeypatch):
    """Regression: keys once hashed the git commit, so committing while a sweep ran made its
    own finished runs unfindable (FileNotFoundError when writing results.csv)."""
    from simulations import provenance
    from simulations.sweep import spec as sweep_spec
    from simulations.sweep.execute import plan
    spec = sweep_spec.load(SMOKE)
    before = [r["key"] for r in plan(spec, tmp_path)[0]]
    monkeypatch.setattr(provenance, "code_version",
                        lambda *a, **k: {"commit": "0" * 40, "dirty": True})
    assert [r["key"] for r in plan(spec, tmp_path)[0]] == before
