"""Model vs reality without sessions: the MCP Python SDK's server at protocol 2026-07-28 (its
modern, single-exchange entry) against the model's `stateless` transport. A break the server
sees cancels the request before its side effect; a half-open one runs on and the call executes
twice; a restart or a failover after the side effect executes it twice; the model predicts each
count. The real runs need the 'conformance' extra and nginx (MCP_CONFORMANCE_REQUIRED=1 makes
a missing requirement a failure)."""
import json
import subprocess
import sys

import pytest
from conformance_support import require_conformance

from simulations.cli import main
from simulations.conformance.stateless_cases import CASES, Outcome, predict
from simulations.scenarios import SCENARIOS

#: what each case must show, on the real SDK and in the model alike
EXPECTED = {
    "stateless_break_seen": Outcome((1,), "cancelled", "same process", 1, 0, "completed"),
    "stateless_break_half_open": Outcome((2,), "ran_on", "same process", 1, 1, "completed"),
    "stateless_restart_mid_call": Outcome((1,), "cancelled", "same instance, restarted", 1, 0,
                                          "completed"),
    "stateless_restart_result_lost": Outcome((2,), "executed_then_lost",
                                             "same instance, restarted", 1, 1, "completed"),
    "stateless_failover_round_robin": Outcome((2, 1), "executed_then_lost", "other instance", 1,
                                              1, "completed"),
}


def test_the_model_predicts_each_cases_executions():
    assert {name: predict(case) for name, case in CASES.items()} == EXPECTED


def test_the_failover_case_is_the_incident_scenario_itself():
    assert CASES["stateless_failover_round_robin"].scenario is \
        SCENARIOS["result_lost_in_a_restart"]


def test_predictions_need_only_the_model(capsys):
    assert main(["conformance", "--transport", "stateless", "--predict-only", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["case"] for r in rows] == list(CASES)
    assert {r["case"]: Outcome.from_dict(r["model"]) for r in rows} == EXPECTED


@pytest.mark.parametrize("argv, says", [
    (["--transport", "stateless", "--case", "own_cursor"], "--case must be one of"),
    (["--case", "stateless_break_seen"], "needs --transport stateless"),
    (["--transport", "stateless", "--server", "sdk"], "takes none of"),
    (["--transport", "stateless", "--fleet"], "takes none of"),
    (["--transport", "stateless", "--differential"], "takes none of"),
    (["--transport", "none"], "invalid choice"),
])
def test_bad_arguments_are_one_line_and_exit_2(argv, says, tmp_path, capsys):
    assert main(["conformance", "--out", str(tmp_path / "out")] + argv) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_missing_requirements_are_named_with_exit_2(monkeypatch, tmp_path, capsys):
    from simulations.conformance import harness
    monkeypatch.setattr(harness, "missing_requirements", lambda servers=(), nginx=True, cases=(): [
        "nginx is not installed (Debian: apt-get install nginx-light)"])
    assert main(["conformance", "--transport", "stateless", "--out", str(tmp_path / "out")]) == 2
    assert "nginx is not installed" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    """One run of the CLI over every stateless case, as a user would start it."""
    require_conformance(need_nginx=True)
    out = tmp_path_factory.mktemp("stateless")
    proc = subprocess.run([sys.executable, "-m", "simulations", "conformance", "--transport",
                           "stateless", "--json", "--workers", "2", "--out", str(out),
                           "--logs", str(out / "logs")],
                          capture_output=True, text=True, timeout=600)
    return proc, out


def test_model_and_the_real_sdk_agree_on_every_stateless_case(real_run):
    proc, _ = real_run
    rows = json.loads(proc.stdout)["rows"]
    assert [r["case"] for r in rows] == list(CASES)
    assert [f"{r['case']}: {r['differences']} ({r['evidence']})" for r in rows
            if not r["agree"]] == []
    assert proc.returncode == 0, proc.stderr


def test_the_real_sdk_executes_as_counted_in_its_ledger(real_run):
    """Read off the real run (not the model): executions per call, and what the broken request
    did, from the ledger the tool writes its side effect to."""
    rows = {r["case"]: r for r in json.loads(real_run[0].stdout)["rows"]}
    real = {name: Outcome.from_dict(row["real"]) for name, row in rows.items()}
    assert real == EXPECTED
    # the server saw the closed POST: the handler was cancelled before its side effect
    seen = rows["stateless_break_seen"]["evidence"].split("; POST id 2")[0]
    assert "closed by the client" in seen and "ledger ['started', 'cancelled']" in seen
    # half-open: the POST stayed open, the handler ran to its end with nobody reading
    half = rows["stateless_break_half_open"]["evidence"].split("; POST id 2")[0]
    assert "['A:1'], open" in half and "ledger ['started', 'executed', 'returned']" in half
    # the restart after the side effect: executed, then cancelled by the shutdown
    lost = rows["stateless_restart_result_lost"]["evidence"].split("; POST id 2")[0]
    assert "ledger ['started', 'executed', 'cancelled']" in lost and "on A.1" in lost
    assert "POST id 2 (A) on A.2" in rows["stateless_restart_result_lost"]["evidence"]


def test_the_results_folder_has_the_table_and_a_manifest(real_run):
    _, out = real_run
    text = (out / "STATELESS-RESULTS.md").read_text()
    assert f"{len(CASES)} of {len(CASES)} stateless cases agree" in text
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["versions"]["mcp"] == "2.3.0"
    assert manifest["config"]["cases"] == list(CASES)
    from simulations.conformance.stateless_report import load_rows
    assert [r.model for r in load_rows(out)] == [EXPECTED[name] for name in CASES]


def test_a_disagreement_is_a_row_that_says_no_and_a_nonzero_exit(monkeypatch, tmp_path, capsys):
    require_conformance()
    from simulations.conformance import harness, stateless_drills
    monkeypatch.setattr(harness, "missing_requirements", lambda *a, **k: [])
    made_up = Outcome((2,), "ran_on", "same process", 1, 1, "completed")
    monkeypatch.setitem(stateless_drills.DRILLS, "stateless_break_seen",
                        lambda env: stateless_drills.Observed(made_up, "made up for the test"))
    code = main(["conformance", "--transport", "stateless", "--case", "stateless_break_seen",
                 "--out", str(tmp_path), "--logs", str(tmp_path / "logs")])
    assert code == 1
    text = (tmp_path / "STATELESS-RESULTS.md").read_text()
    assert "| stateless_break_seen | direct | executed 2x;" in text
    assert "NO: executions: model (1,), real (2,)" in capsys.readouterr().out
