"""Model vs reality: every conformance case against the real MCP Python SDK, the SDK behind
StrictResumptionGuard and the TypeScript SDK, two instances behind a real nginx for the
load-balanced cases; then every differential finding's sequence in lockstep. The model's `sdk`
policy must predict the plain Python SDK, `strict` the guarded one and `sdk-typescript` the
TypeScript SDK, on every case, or the difference must be a documented server defect."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conformance_support import require_conformance

from simulations.cli import main
from simulations.conformance.cases import CASES
from simulations.conformance.differential.findings import FINDINGS
from simulations.conformance.outcome import Outcome

ROOT = Path(__file__).resolve().parent.parent
SERVERS = ("sdk", "guard", "ts")


@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    """One run of the CLI over every case and server, as a user would start it."""
    require_conformance(need_nginx=True, servers=SERVERS, cases=CASES)
    out = tmp_path_factory.mktemp("conformance")
    proc = subprocess.run([sys.executable, "-m", "simulations", "conformance", "--json",
                           "--workers", "3", "--out", str(out), "--logs", str(out / "logs")],
                          capture_output=True, text=True, timeout=900)
    return proc, out


def test_model_and_reality_agree_on_every_case(real_run):
    proc, out = real_run
    rows = json.loads(proc.stdout)["rows"]
    disagreements = [f"{r['case']}/{r['server']}: {r['differences']} ({r['evidence']})"
                     for r in rows if not r["settled"]]
    assert disagreements == [], "\n".join(disagreements)
    assert {(r["case"], r["server"]) for r in rows} == \
        {(c, s) for c in CASES for s in SERVERS}
    explained = {(r["case"], r["server"]) for r in rows if not r["agree"]}
    assert explained <= {(c, s) for c in CASES for s in CASES[c].defects}
    assert all(r["agree"] for r in rows if r["server"] != "ts")
    assert proc.returncode == 0, proc.stderr


def test_every_differential_finding_replays_in_agreement(real_run):
    findings = json.loads(real_run[0].stdout)["findings"]
    assert {(f["finding"], f["server"]) for f in findings} == \
        {(name, s) for name, f in FINDINGS.items() for s in f.servers}
    assert [f for f in findings if not f["agree"]] == []


def test_the_real_sdk_shows_what_the_model_says_it_does(real_run):
    """The findings the README cites, read off the real run (not the model)."""
    real = {(r["case"], r["server"]): r["real"] for r in json.loads(real_run[0].stdout)["rows"]}
    assert real[("evicted_cursor", "sdk")]["stream"] == "empty_close"
    assert real[("evicted_cursor_sdk_client", "sdk")]["client"] == "stalled"
    assert real[("foreign_cursor", "sdk")]["stream"] == "foreign"
    assert real[("same_request_id", "sdk")]["stream"] == "foreign"
    assert real[("same_request_id", "guard")]["stream"] == "replay"
    assert real[("restart_then_resume", "sdk")]["client"] == "gave_up"
    assert real[("evicted_cursor", "guard")]["code"] == "replay_gap"
    assert real[("foreign_cursor", "guard")]["status"] == 400
    assert real[("foreign_cursor", "ts")]["stream"] == "empty"      # open, attached to nothing
    # the TypeScript client waits on the detached stream until its request timeout fails the call
    assert real[("evicted_cursor_sdk_client", "ts")]["client"] == "gave_up"
    # the TypeScript client's reaction to the guard's 409: two retries, then the call times out
    assert real[("evicted_cursor_ts_client", "guard")] == {
        "status": 409, "code": "replay_gap", "stream": "rejected", "client": "gave_up"}
    # on the Python SDK's empty close it asks again without a cursor: no stall, a timeout
    assert real[("evicted_cursor_ts_client", "sdk")]["stream"] == "empty_close"
    assert real[("evicted_cursor_ts_client", "sdk")]["client"] == "gave_up"


def test_the_results_folder_has_the_table_and_a_manifest(real_run):
    _, out = real_run
    text = (out / "CONFORMANCE.md").read_text()
    assert f"of {3 * len(CASES)} cells agree" in text
    assert "## Differential findings" in text and "half_open_resume_python" in text
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["versions"]["mcp"] == "2.3.0"
    assert manifest["config"]["cases"] == list(CASES)


GUARDED = ("guard-naive", "guard-range", "guard-generation", "guard-provenance")


def test_every_policy_behind_the_guard_does_what_the_model_says(tmp_path):
    """The real SDK behind ResumptionGuard with each weaker policy: the cases where the policies
    part ways (a gap, a foreign cursor, an unknown session, the SDK client after a gap) agree
    with the model's prediction for that policy (make conformance runs every case)."""
    require_conformance(need_nginx=True, servers=GUARDED)
    cases = ("evicted_cursor", "foreign_cursor", "unknown_session", "evicted_cursor_sdk_client")
    argv = [sys.executable, "-m", "simulations", "conformance", "--json", "--workers", "3",
            "--out", str(tmp_path / "out"), "--logs", str(tmp_path / "logs")]
    argv += [a for server in GUARDED for a in ("--server", server)]
    argv += [a for case in cases for a in ("--case", case)]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    rows = json.loads(proc.stdout)["rows"]
    assert [f"{r['case']}/{r['server']}: {r['differences']}" for r in rows if not r["agree"]] \
        == []
    real = {(r["case"], r["server"]): r["real"] for r in rows}
    assert real[("evicted_cursor", "guard-naive")]["stream"] == "from_head"
    assert real[("evicted_cursor", "guard-provenance")]["stream"] == "gap"
    assert real[("evicted_cursor", "guard-range")]["code"] == "replay_gap"
    assert real[("unknown_session", "guard-naive")]["stream"] == "empty"     # a stall
    assert len(rows) == len(cases) * len(GUARDED) and proc.returncode == 0, proc.stderr


def test_the_committed_guarded_results_still_say_what_the_model_predicts():
    from simulations.conformance.predict import predict
    from simulations.conformance.report import load_rows
    rows = load_rows(ROOT / "results" / "conformance" / "guarded")
    assert all(r.agree for r in rows)
    assert {(r.case, r.server): r.model for r in rows} == \
        {(c, s): predict(CASES[c], s) for c in CASES for s in GUARDED}


def test_predictions_need_only_the_model(capsys):
    assert main(["conformance", "--predict-only", "--json", "--case", "foreign_cursor"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["server"]: (r["model"]["code"], r["model"]["stream"]) for r in rows} == \
        {"sdk": ("ok", "foreign"), "guard": ("cursor_session_mismatch", "rejected"),
         "ts": ("ok", "empty")}


def test_a_disagreement_is_a_row_that_says_no_and_a_nonzero_exit(monkeypatch, tmp_path, capsys):
    require_conformance()
    from simulations.conformance import drills, harness
    monkeypatch.setattr(harness, "missing_requirements", lambda *a, **k: [])
    monkeypatch.setitem(drills.DRILLS, "unknown_session", lambda env: drills.Observed(
        Outcome(200, "ok", "empty", "-"), "made up for the test"))
    code = main(["conformance", "--case", "unknown_session", "--server", "sdk",
                 "--out", str(tmp_path), "--logs", str(tmp_path / "logs")])
    assert code == 1
    text = (tmp_path / "CONFORMANCE.md").read_text()
    assert "| unknown_session | raw / direct | NO: real 200 ok / empty, model 404 " in text
    assert "status: model 404, real 200" in capsys.readouterr().out


def test_missing_requirements_are_named_with_exit_2_and_nothing_written(monkeypatch, tmp_path,
                                                                        capsys):
    from simulations.conformance import harness
    monkeypatch.setattr(harness, "missing_requirements", lambda servers=(), nginx=True, cases=(): [
        "nginx is not installed (Debian: apt-get install nginx-light)"])
    assert main(["conformance", "--out", str(tmp_path / "out")]) == 2
    assert "nginx is not installed" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_typescript_server_without_node_is_named_with_exit_2(monkeypatch, tmp_path, capsys):
    from simulations.conformance import processes
    monkeypatch.setattr(processes, "missing_node", lambda: "node is not on PATH (test)")
    assert main(["conformance", "--server", "ts", "--out", str(tmp_path / "out")]) == 2
    assert "node is not on PATH (test)" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_case_the_typescript_client_drives_needs_node_on_any_server(monkeypatch, tmp_path,
                                                                      capsys):
    from simulations.conformance import processes
    monkeypatch.setattr(processes, "missing_node", lambda: "node is not on PATH (test)")
    assert main(["conformance", "--server", "sdk", "--case", "evicted_cursor_ts_client",
                 "--out", str(tmp_path / "out")]) == 2
    assert "node is not on PATH (test)" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_client_cases_stream_is_read_off_what_the_server_sent_and_ended():
    """The harness used to read 'closed' off a second resumption (the TypeScript client asks
    again without a cursor, the Python client also reopens its standalone GET): the drivers now
    note whether the server ended each response body, and whether it carried a gap notice."""
    from simulations.conformance.drills import _client_outcome
    from simulations.conformance.sdk_driver import ClientRun, Exchange

    def run(outcome, labels, ended=False, gap=False):
        exchanges = [Exchange("POST", "initialize", "", 200, "a"),
                     Exchange("GET", "", "", 200, "a"),
                     Exchange("GET", "", "e1", 200, "a", ended=ended, gap=gap),
                     Exchange("GET", "", "", 200, "a")]
        return ClientRun(outcome, "", labels, exchanges)
    whole = [f"A:{n}" for n in range(1, 10)] + ["A:done"]
    assert _client_outcome(run("gave_up", ["A:1"]), "A", 9, 1).stream == "empty"
    assert _client_outcome(run("gave_up", ["A:1"], ended=True), "A", 9, 1).stream == \
        "empty_close"
    assert _client_outcome(run("completed", whole), "A", 9, 1).stream == "replay"
    head = ["A:1", "A:8", "A:9", "A:done"]
    assert _client_outcome(run("completed", head), "A", 9, 1, 3).stream == "from_head"
    assert _client_outcome(run("completed", head, gap=True), "A", 9, 1, 3).stream == "gap"
    # the client may not have received the label sent just before the server closed the stream
    assert _client_outcome(run("completed", head[1:]), "A", 9, 1, 3).stream == "from_head"
    assert _client_outcome(run("completed", head[2:]), "A", 9, 1, 3).stream != "from_head"


@pytest.mark.parametrize("argv", [["--case", "nope"], ["--server", "both"]])
def test_bad_arguments_exit_2(argv, capsys):
    assert main(["conformance"] + argv) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_the_committed_results_still_say_what_the_model_predicts():
    """Back-test: results/conformance agrees on every row, and its model column is what the
    model predicts today (a model change that moves a prediction means `make conformance`)."""
    from simulations.conformance.predict import predict
    from simulations.conformance.report import load_rows
    rows = load_rows(ROOT / "results" / "conformance")
    assert all(r.settled for r in rows)
    assert {(r.case, r.server): r.model for r in rows} == \
        {(c, s): predict(CASES[c], s) for c in CASES for s in SERVERS}


def test_the_readme_shows_the_committed_table():
    from simulations.conformance.harness import table
    from simulations.conformance.report import load_rows
    from simulations.verify.claims import block
    assert block((ROOT / "README.md").read_text(), "conformance") == \
        table(load_rows(ROOT / "results" / "conformance")).rstrip("\n")


def test_the_generated_nginx_config_balances_as_its_mode_says(tmp_path):
    from simulations.conformance.nginx import render_config
    sticky = render_config("sticky", [5001, 5002], 6000, tmp_path)
    round_robin = render_config("round_robin", [5001, 5002], 6000, tmp_path)
    assert "hash $http_mcp_session_id consistent;" in sticky
    assert "hash" not in round_robin
    for conf in (sticky, round_robin):
        assert "listen 127.0.0.1:6000;" in conf and "server 127.0.0.1:5002" in conf
        assert "proxy_buffering off;" in conf and "X-Upstream $upstream_addr" in conf
    with pytest.raises(ValueError, match="unknown nginx mode"):
        render_config("least_conn", [5001], 6000, tmp_path)


def test_the_client_drivers_see_a_gap_notice_at_the_head_of_a_large_first_chunk():
    """Regression: the driver kept only the last 256 bytes of what it had read before looking
    for the notice, so a notice at the head of a large first chunk (notice + replay in one
    read) was missed and a gap stream was read as from_head."""
    import anyio

    from simulations.conformance.sdk_driver import Exchange, WatchedStream

    class Chunks:
        def __init__(self, chunks):
            self.chunks = chunks

        async def __aiter__(self):
            for chunk in self.chunks:
                yield chunk

        async def aclose(self):
            pass
    notice = b'data: {"jsonrpc":"2.0","method":"notifications/resumption_gap"}\n\n'
    for chunks in ([notice + b"x" * 1000], [notice[:20], notice[20:] + b"y" * 500]):
        exchange = Exchange("GET", "", "e1", 200, "a")

        async def read(exchange=exchange, chunks=chunks):
            return b"".join([c async for c in WatchedStream(Chunks(chunks), exchange)])
        assert anyio.run(read) == b"".join(chunks)
        assert exchange.gap and exchange.ended
