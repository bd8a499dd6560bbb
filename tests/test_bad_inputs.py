"""Bad input, verb by verb: one line naming the input and the problem, exit 2, nothing written.

Each case builds its inputs in a fresh folder, runs the CLI in-process and checks that the
folder's files are exactly what they were before (no partial output anywhere)."""
import json
import shutil
from pathlib import Path

import pytest

from simulations.cli import main

ROOT = Path(__file__).resolve().parent.parent
CONFIG = str(ROOT / "simulations/configs/rolling_restart.toml")
SWEEP = ROOT / "results/sweeps/restart_frequency"


def _sweep_copy(tmp: Path) -> Path:
    folder = tmp / "sweep"
    folder.mkdir()
    for name in ("manifest.json", "results.csv"):
        shutil.copy(SWEEP / name, folder / name)
    return folder


def _run_folder(tmp: Path) -> Path:
    folder = tmp / "run"
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({"command": "run x", "config": {}}))
    (folder / "summary.json").write_text(json.dumps({"config": {}, "summary": {}}))
    return folder


def _broken_summary(tmp: Path) -> Path:
    folder = _run_folder(tmp)
    (folder / "summary.json").write_text('{"config": ')
    return folder


def _truncated(tmp: Path) -> Path:
    folder = _sweep_copy(tmp)
    lines = (folder / "results.csv").read_text().splitlines()
    (folder / "results.csv").write_text("\n".join(lines[:40]) + "\n")
    return folder


def _corrupt_manifest(tmp: Path) -> Path:
    folder = _sweep_copy(tmp)
    (folder / "manifest.json").write_text('{"command": "sweep x", ')
    return folder


def _file(tmp: Path, name: str, data: bytes) -> Path:
    (tmp / name).write_bytes(data)
    return tmp / name


def _foreign_folder(tmp: Path) -> Path:
    (tmp / "mine").mkdir()
    (tmp / "mine" / "notes.txt").write_text("keep me")
    return tmp / "mine"


CASES = {
    "run on a directory": (lambda t: ["run", str(t)], "is a directory, not a config file"),
    "run on a missing file": (lambda t: ["run", str(t / "x.toml")],
                              "x.toml: no such config file"),
    "run on a non-UTF-8 file": (lambda t: ["run", str(_file(t, "l.toml", b"\xff\xfe"))],
                                "is not UTF-8 text"),
    "run with no policies": (lambda t: ["run", str(_file(t, "p.toml", b"[run]\npolicies = []"))],
                             "'run.policies': needs at least one policy"),
    "run --policies ''": (lambda t: ["run", CONFIG, "--policies", ""], "names no policy"),
    "run without its baseline": (lambda t: ["run", CONFIG, "--policies", "naive,range"],
                                 "'strict' is not among the policies"),
    "run --out on a file": (lambda t: ["run", CONFIG, "--out", str(_file(t, "f", b"x"))],
                            "exists and is a file"),
    "run --out on someone's folder": (lambda t: ["run", CONFIG, "--out", str(_foreign_folder(t))],
                                      "holds files this `run` did not write"),
    "run --precision out of range": (lambda t: ["run", CONFIG, "--precision", "1.5"],
                                     "--precision: a half-width of a share"),
    "run --workers 0": (lambda t: ["run", CONFIG, "--workers", "0"], "--workers must be >= 1"),
    "sweep on a directory": (lambda t: ["sweep", str(t), "--out", str(t / "o")],
                             "is a directory, not a sweep spec"),
    "sweep with a missing base": (
        lambda t: ["sweep", str(_file(t, "s.toml", b'base = "nope.toml"\n[grid]\n'
                                      b'"timing.drop_rate" = [0.1]\n')), "--out", str(t / "o")],
        "'base': ", ),
    "sweep on an unreachable scheduler": (
        lambda t: ["sweep", str(ROOT / "simulations/sweeps/smoke.toml"), "--out", str(t / "o"),
                   "--scheduler", "tcp://127.0.0.1:9"], "no Dask scheduler reachable"),
    "sweep --out on a file": (
        lambda t: ["sweep", str(ROOT / "simulations/sweeps/smoke.toml"), "--out",
                   str(_file(t, "f", b"x"))], "exists and is a file"),
    "figures on a truncated results.csv": (lambda t: ["figures", str(_truncated(t))],
                                           "rows, but the manifest's sweep has 288 runs"),
    "figures on a corrupt manifest": (lambda t: ["figures", str(_corrupt_manifest(t))],
                                      "the manifest is not valid JSON"),
    "figures on a run folder": (lambda t: ["figures", str(_run_folder(t))],
                                "is a `run` folder"),
    "figures on a missing folder": (lambda t: ["figures", str(t / "none")],
                                    "no such sweep folder"),
    "report on a corrupt manifest": (lambda t: ["report", str(_corrupt_manifest(t))],
                                     "the manifest is not valid JSON"),
    "report on a truncated results.csv": (lambda t: ["report", str(_truncated(t))],
                                          "truncated or edited"),
    "report on a missing folder": (lambda t: ["report", str(t / "none")],
                                   "no such results folder"),
    "verify on a directory": (lambda t: ["verify", "--space", str(t)],
                              "is a directory, not a space file"),
    "verify on a non-UTF-8 space": (
        lambda t: ["verify", "--space", str(_file(t, "v.toml", b"\xff"))], "is not UTF-8 text"),
    "sweep on an empty file": (lambda t: ["sweep", str(_file(t, "e.toml", b"")), "--out",
                                          str(t / "o")], "needs base ="),
    "sweep on a non-UTF-8 spec": (lambda t: ["sweep", str(_file(t, "n.toml", b"\xff")),
                                             "--out", str(t / "o")], "is not UTF-8 text"),
    "run on a corrupt config": (lambda t: ["run", str(_file(t, "c.toml", b"[timing\nx = 1"))],
                                "not valid TOML"),
    "report on a corrupt run summary": (
        lambda t: ["report", str(_broken_summary(t))], "the run's summary is not valid JSON"),
    "verify on an empty space": (lambda t: ["verify", "--space", str(_file(t, "e.toml", b""))],
                                 "the space is empty"),
    "explore --figures on a file": (
        lambda t: ["explore", "--policy", "naive", "--figures", str(_file(t, "f", b"x"))],
        "--figures"),
    "explore --graphml on a folder": (lambda t: ["explore", "--policy", "naive", "--graphml",
                                                 str(t)], "is a folder; name a file"),
    "scenario --out on a file": (lambda t: ["scenario", "--all", "--out",
                                            str(_file(t, "f", b"x"))], "exists and is a file"),
    "conformance --out on a file": (lambda t: ["conformance", "--predict-only", "--out",
                                               str(_file(t, "f", b"x"))], "exists and is a file"),
    "bench on an unknown policy": (lambda t: ["bench", "explore", "--policy", "nope"],
                                   "unknown policy 'nope'"),
    "bench --instances with des": (lambda t: ["bench", "des", "--instances", "2"],
                                   "goes with `bench explore` or `bench por`"),
    "bench por --instances 0": (lambda t: ["bench", "por", "--instances", "0"],
                                "--instances N (N >= 1) goes with"),
    "bench por --instances 3": (lambda t: ["bench", "por", "--instances", "3"],
                                "bench por measures 1 or 2 instances, got 3"),
    "bench por --repeats": (lambda t: ["bench", "por", "--repeats", "2"],
                            "goes with `bench des`, `bench explore` or `bench history`"),
    "bench --repeats 0": (lambda t: ["bench", "des", "--repeats", "0"],
                          "--repeats N (N >= 1) goes with"),
    "bench sweep --repeats": (lambda t: ["bench", "sweep", "--repeats", "2"],
                              "goes with `bench des`, `bench explore` or `bench history`"),
    "bench scopes --repeats": (lambda t: ["bench", "scopes", "--repeats", "2"],
                               "goes with `bench des`, `bench explore` or `bench history`"),
    "bench --scope with explore": (lambda t: ["bench", "explore", "--scope", "default"],
                                   "--scope and --max-states go with `bench scopes` only"),
    "bench scopes on an unknown scope": (lambda t: ["bench", "scopes", "--scope", "huge"],
                                         "unknown scope 'huge'; valid: default, restarts-2"),
    "bench scopes --max-states 0": (lambda t: ["bench", "scopes", "--max-states", "0"],
                                    "--max-states must be >= 1, got 0"),
    "bench explore --duration": (lambda t: ["bench", "explore", "--duration", "60"],
                                 "--duration goes with `bench des` only"),
    "bench des --duration 0": (lambda t: ["bench", "des", "--duration", "0"],
                               "--duration must be > 0, got 0.0"),
    "bench sweep --policy": (lambda t: ["bench", "sweep", "--policy", "naive"],
                             "--policy goes with `bench des`, `bench explore`, `bench scopes`, "
                             "`bench por` or `bench history`"),
    "run a gate on a stateless transport": (
        lambda t: ["run", CONFIG, "--set", "system.transport=\"stateless\""],
        "decides resumptions, and system.transport = 'stateless' has none"),
    "run with a record TTL of 0": (
        lambda t: ["run", CONFIG, "--policies", "strict,stateless+idempotency", "--set",
                   "timing.record_ttl=0"], "'timing.record_ttl': must be > 0"),
    "run on an unknown transport": (
        lambda t: ["run", CONFIG, "--set", "system.transport=\"polling\""],
        "'system.transport': must be one of sessions, stateless, stateless+idempotency, tasks"),
    "run a gate on the tasks transport": (
        lambda t: ["run", CONFIG, "--set", "system.transport=\"tasks\""],
        "decides resumptions, and system.transport = 'tasks' has none"),
    "run with a task TTL of 0": (
        lambda t: ["run", CONFIG, "--policies", "strict,tasks", "--set",
                   "timing.record_ttl=0"], "'timing.record_ttl': must be > 0"),
    "run with a poll interval of 0": (
        lambda t: ["run", CONFIG, "--policies", "strict,tasks", "--set",
                   "timing.poll_interval=0"], "'timing.poll_interval': must be > 0"),
    "explore a gate on a stateless transport": (
        lambda t: ["explore", "--policy", "strict", "--set",
                   "system.transport=\"stateless\""], "'strict' decides resumptions"),
    "scenario on an unknown row": (lambda t: ["scenario", "--all", "--policy", "stateles"],
                                   "or a stateless transport"),
    "verify with transport as an axis": (
        lambda t: ["verify", "--space", str(_file(t, "s.toml", b"[[blocks]]\nname = 'b'\n"
                                                  b"[blocks.axes]\ntransport = ['stateless']"
                                                  b"\n")), "--out", str(t / "o")],
        "a transport is a row, not a deployment"),
    "sweep a gate on a stateless transport": (
        lambda t: ["sweep", str(_file(t, "w.toml", f"base = '{CONFIG}'\n[set]\n"
                                      "'system.transport' = 'stateless'\n[grid]\n"
                                      "'timing.drop_rate' = [0.01]\n".encode())), "--out",
                   str(t / "o")], "decides resumptions"),
    "sweep with a deployment that [set] also sets": (
        lambda t: ["sweep", str(_file(t, "d.toml", f"base = '{CONFIG}'\n[set]\n"
                                      "'system.store' = 'local'\n[deployments.a]\n"
                                      "'system.store' = 'shared'\n[grid]\n"
                                      "'timing.drop_rate' = [0.01]\n".encode())), "--out",
                   str(t / "o")], "'deployments.a.system.store': is also set by [set]"),
    "sweep with an empty deployment": (
        lambda t: ["sweep", str(_file(t, "d.toml", f"base = '{CONFIG}'\n[deployments.a]\n"
                                      "[grid]\n'timing.drop_rate' = [0.01]\n".encode())),
                   "--out", str(t / "o")], "'deployments.a': is empty"),
    "sweep with a deployment axis in the grid": (
        lambda t: ["sweep", str(_file(t, "d.toml", f"base = '{CONFIG}'\n[grid]\n"
                                      "'deployment' = ['a']\n".encode())),
                   "--out", str(t / "o")], "is the axis [deployments.NAME] tables make"),
    "sweep with a bad value in a deployment": (
        lambda t: ["sweep", str(_file(t, "d.toml", f"base = '{CONFIG}'\n[deployments.a]\n"
                                      "'system.store' = 'redis'\n".encode())),
                   "--out", str(t / "o")], "(grid point deployment='a')"),
    "verify --out on someone's folder": (
        lambda t: ["verify", "--space", str(ROOT / "simulations/spaces/reduced.toml"), "--out",
                   str(_foreign_folder(t))], "holds files this `verify` did not write"),
}


def _snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_one_line_exit_2_and_nothing_written(case, tmp_path, capsys, monkeypatch):
    build, message = CASES[case]
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(tmp_path)          # default output folders would land here
    argv = build(work)
    before = _snapshot(tmp_path)
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], captured.err
    assert captured.out == ""
    assert _snapshot(tmp_path) == before
