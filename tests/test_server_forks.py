"""Python server incarnations forked from the pre-imported template: each restart is a fresh
process on the same port that knows none of its predecessor's sessions (the same as an exec'd
interpreter under MCP_CONFORMANCE_EXEC=1), a fork that fails is named with its exit code and
log, and no fork or template outlives a stop, the `Processes` context or a harness killed with
SIGKILL; a start after the template died is an error naming it."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conformance_support import require_conformance
from process_support import alive

from simulations.conformance import server_forks
from simulations.conformance.probe import HarnessError
from simulations.conformance.processes import ForkedServer, Process, Processes
from simulations.conformance.wire import WireClient

ROOT = Path(__file__).resolve().parent.parent


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


@pytest.fixture(params=["fork", "exec"])
def mode(request, monkeypatch):
    monkeypatch.setenv(server_forks.EXEC_VARIABLE, "1" if request.param == "exec" else "0")
    return request.param


def test_forking_is_the_default_and_the_variable_turns_it_off(monkeypatch):
    monkeypatch.delenv(server_forks.EXEC_VARIABLE, raising=False)
    assert server_forks.forking()
    monkeypatch.setenv(server_forks.EXEC_VARIABLE, "1")
    assert not server_forks.forking()


def test_a_restart_is_a_fresh_process_on_the_same_port_that_knows_no_old_session(tmp_path,
                                                                                  mode):
    require_conformance(servers=("sdk",))
    with Processes(tmp_path) as procs:
        server = procs.server("A")
        first, port = server.process, server.port
        client = WireClient(server.url)
        assert client.initialize().status == 200
        server.restart()
        assert server.port == port and server.incarnation == 2
        assert server.process.pid != first.pid and not first.alive()
        assert server.process.alive()
        if mode == "fork":
            assert isinstance(server.process, ForkedServer)
            assert _parent(server.process.pid) == procs.template_process.pid
            assert [c.name for c in procs.children if c.name == "server-template"] == \
                ["server-template"]     # one template, imported once, for both incarnations
        else:
            assert isinstance(server.process, Process) and procs.template is None
        answer = client.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert answer.status == 404     # the new incarnation has no session of the old one's
        client.close()
        assert (tmp_path / "A.2.log").exists()
    assert not server.process.alive()
    if mode == "fork":
        assert not procs.template_process.alive() and procs.template is None


def test_a_server_that_exits_at_start_is_named_with_its_exit_code_and_log(tmp_path, mode):
    require_conformance(servers=("sdk",))
    with Processes(tmp_path) as procs:
        with pytest.raises(HarnessError, match=r"A\.1 exited with 2:(.|\n)*invalid int value"):
            procs.server("A", capacity="many")      # argparse refuses it: exit status 2


def test_a_dead_template_takes_its_forks_and_is_a_harness_error_naming_it(tmp_path,
                                                                           monkeypatch):
    require_conformance(servers=("sdk",))
    monkeypatch.delenv(server_forks.EXEC_VARIABLE, raising=False)
    with Processes(tmp_path) as procs:
        server = procs.server("A")
        os.kill(procs.template_process.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and server.process.alive():
            time.sleep(0.05)
        assert not server.process.alive()          # its parent-death signal
        assert server.process.returncode is None   # nobody left to say how it ended
        with pytest.raises(HarnessError, match=r"the server template could not start A\.2"):
            server.restart()


_HARNESS = """
import sys, time
from pathlib import Path
from simulations.conformance.processes import Processes
with Processes(Path(sys.argv[1])) as procs:
    server = procs.server("A")
    print(server.process.pid, procs.template_process.pid, flush=True)
    time.sleep(600)
"""


def test_a_harness_killed_with_sigkill_leaves_no_fork_or_template_behind(tmp_path):
    """Nothing stops them but parent-death signals: the harness gets no chance to."""
    require_conformance(servers=("sdk",))
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs Linux /proc")
    proc = subprocess.Popen([sys.executable, "-c", _HARNESS, str(tmp_path)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(p) for p in proc.stdout.readline().split()]
        assert len(pids) == 2, "the harness did not start its server"
        assert all(alive(pid) for pid in pids)
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(alive(pid) for pid in pids):
        time.sleep(0.1)
    assert [pid for pid in pids if alive(pid)] == []
