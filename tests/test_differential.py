"""Differential testing: random action sequences in lockstep on the model and on real servers.

Without servers: each finding's minimal sequence is a run of the model that shows what the
finding changed (a priming event behind the replay, a stream that ends after its replay while a
half-open connection holds the stream, a stream attached to nothing), and bad arguments are one
line with exit 2. With servers (the conformance extra, Node): the CLI runs 50 sequences per
server with no disagreement, and every model change is witnessed: its finding's sequence
disagrees again on the model as it was."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conformance_support import require_conformance
from process_support import survivors_of_a_kill, wait_for_descendants

from model import Deliver, SystemConfig, apply, initial_state
from model.buffers import PRIMING
from model.history import Decided, Primed, StreamClosed, StreamStalled
from simulations.cli import main
from simulations.conformance.differential.findings import FINDINGS
from simulations.conformance.differential.lockstep import deployment
from simulations.conformance.differential.scope import SCOPE

SERVERS = ("sdk", "guard", "ts")


def _model_run(finding: str, server: str, policy=None, **overrides):
    config, own = deployment(server, SCOPE["instances"], SCOPE["clients"], SCOPE["messages"],
                             SCOPE["capacity"])
    policy = policy or own
    config = config.replace(**overrides)
    state, events = initial_state(config), []
    for action in FINDINGS[finding].sequence:
        state, step = apply(state, action, config, policy)      # each action must be enabled
        events.append(step)
    return state, events


def test_a_resumed_python_sdk_stream_carries_a_priming_event_behind_its_replay():
    config = deployment("sdk", 2, 2, 4, 4)[0]
    state, _ = _model_run("resumed_stream_primed", "sdk")
    client = state.clients[0]
    assert [item.truth.msg for item in client.inflight] == [PRIMING]
    primed = apply(state, Deliver(0), config, "sdk")
    assert [type(e) for e in primed.events] == [Primed]
    assert primed.state.clients[0].cursor.wire == client.inflight[0].wire
    before, _ = _model_run("resumed_stream_primed", "sdk", priming_on_resume=False)
    assert before.clients[0].inflight == ()


def test_a_half_open_stream_makes_the_python_sdk_end_the_resumption_after_its_replay():
    config = deployment("sdk", 2, 2, 4, 4)[0]
    state, events = _model_run("half_open_resume_python", "sdk")
    assert any(s.orphan for inst in state.instances for _, s in inst.sessions)
    client = state.clients[0]
    assert [item.truth.msg for item in client.inflight] == [0]        # no priming, no live
    assert client.stream.ends_when_drained
    after = apply(state, Deliver(0), config, "sdk")
    assert after.state.clients[0].phase == "idle"
    assert any(type(e) is StreamClosed and e.reason == "server_close" for e in after.events)
    taken_over, _ = _model_run("half_open_resume_python", "sdk", on_attached_stream="take_over")
    assert not taken_over.clients[0].stream.ends_when_drained
    assert not any(s.orphan for inst in taken_over.instances for _, s in inst.sessions)


def test_the_typescript_sdk_holds_an_unknown_cursors_stream_open_and_it_stalls():
    state, events = _model_run("typescript_unknown_cursor_detached", "ts")
    decided = [e for e in events[-1] if type(e) is Decided][0]
    assert (decided.status, decided.effect) == (200, "detached")
    assert state.clients[0].phase == "open"
    assert any(type(e) is StreamStalled for e in events[-1])
    _, before = _model_run("typescript_unknown_cursor_detached", "ts", policy="sdk")
    assert [e.effect for e in before[-1] if type(e) is Decided] == ["empty_close"]


def test_the_half_open_budget_is_off_by_default_and_counts_when_given():
    from simulations.explore.scope import Scope
    from simulations.explore.search import explore
    assert Scope().half_opens == 0
    system = SystemConfig(instances=1, clients=1, messages_per_session=1, store="local",
                          buffer="local", on_attached_stream="replay_then_close")
    without = explore(Scope(system=system, restarts=0, client_restarts=0, compactions=0,
                            foreign_cursors=0, sessions=1), "sdk")
    with_half_open = explore(Scope(system=system, restarts=0, client_restarts=0, compactions=0,
                                   foreign_cursors=0, sessions=1, half_opens=1), "sdk")
    assert with_half_open.states > without.states


def test_sequences_offer_every_kind_the_harness_can_do():
    from simulations.conformance.differential.lockstep import VOCABULARY
    from simulations.conformance.differential.machine import KIND_ORDER
    assert sorted(k.__name__ for k in KIND_ORDER) == sorted(k.__name__ for k in VOCABULARY)
    assert KIND_ORDER[0] is Deliver     # Hypothesis favours the first: progress


@pytest.mark.parametrize("argv, message", [
    (["--differential", "--case", "own_cursor"], "takes neither --case nor --predict-only"),
    (["--differential", "--examples", "0"], "--examples must be >= 1, got 0"),
    (["--differential", "--steps", "0"], "--steps must be >= 1, got 0"),
    (["--differential", "--seed", "-1"], "--seed must be >= 0, got -1"),
    (["--seed", "3"], "--seed needs --differential"),
    (["--differential", "--workers", "0"], "--workers must be >= 1, got 0"),
])
def test_bad_differential_arguments_are_one_line_and_exit_2(argv, message, tmp_path, capsys):
    assert main(["conformance", "--out", str(tmp_path / "out")] + argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def differential(tmp_path_factory):
    require_conformance(servers=SERVERS)
    out = tmp_path_factory.mktemp("differential")
    proc = subprocess.run([sys.executable, "-m", "simulations", "conformance", "--differential",
                           "--examples", "50", "--seed", "7", "--workers", "3", "--json",
                           "--out", str(out / "r"),
                           "--logs", str(out / "logs")],
                          capture_output=True, text=True, timeout=1500)
    return proc, out / "r"


def test_fifty_sequences_per_server_agree_with_the_model(differential):
    proc, out = differential
    runs = json.loads(proc.stdout)
    assert [r["server"] for r in runs] == list(SERVERS)
    for run in runs:
        assert run["disagreements"] == [], run["disagreements"]
        assert run["sequences"] >= 50 and run["steps"] >= 10 * 50
        assert {"Deliver", "Reconnect", "HalfOpen", "ForeignCursor", "Stop", "ClientRestart"} <= \
            set(run["actions"]), run["actions"]
        assert any(answer.startswith("200") for answer in run["answers"])
        assert any(not answer.startswith("200") for answer in run["answers"])
    assert proc.returncode == 0, proc.stderr
    assert "No disagreement." in (out / "DIFFERENTIAL.md").read_text()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["seeds"] == 7 and manifest["config"]["servers"] == list(SERVERS)


def test_every_model_change_is_witnessed_by_its_finding_on_the_model_as_it_was(tmp_path):
    """Replayed on the model before the change, each finding's sequence disagrees again: the
    lockstep sees what the change fixed."""
    require_conformance(servers=SERVERS)
    from simulations.conformance.differential.findings import run_findings
    rows = run_findings(list(FINDINGS), SERVERS, tmp_path, as_before=True)
    assert {(r.finding, r.server) for r in rows} == \
        {(name, s) for name, f in FINDINGS.items() if f.before for s in f.servers}
    assert [r for r in rows if r.agree] == []


def test_a_killed_differential_run_leaves_no_server_behind(tmp_path):
    """SIGKILL the harness mid-run: every server it started (node here) goes with it."""
    require_conformance(servers=("ts",))
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs Linux /proc")
    proc = subprocess.Popen([sys.executable, "-m", "simulations", "conformance",
                             "--differential", "--server", "ts", "--examples", "1000",
                             "--logs", str(tmp_path)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    servers = wait_for_descendants(proc.pid, SCOPE["instances"], 60, depth=1)
    survivors = survivors_of_a_kill(proc, servers, 10)
    assert len(servers) >= SCOPE["instances"], "the run never started its servers"
    assert survivors == []
