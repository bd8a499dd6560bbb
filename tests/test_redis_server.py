"""The harness's Redis server: it answers on loopback with the config the harness wrote, keeps
nothing across a restart on the same port, and no redis-server outlives a stop, the `Processes`
context, or a harness killed with SIGKILL. Without redis-server it is named as missing (and the
requirement checks find the SDK without importing it)."""
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conformance_support import require_conformance
from process_support import alive

from simulations.conformance import harness, redis_server
from simulations.conformance.probe import HarnessError
from simulations.conformance.processes import Processes
from simulations.conformance.redis_server import RedisServer

ROOT = Path(__file__).resolve().parent.parent


def _client(server):
    import redis
    return redis.Redis.from_url(server.url, socket_timeout=5)


def test_redis_answers_ping_and_keeps_a_key_with_the_config_the_harness_wrote(tmp_path):
    require_conformance(need_redis=True)
    with Processes(tmp_path) as procs:
        server = RedisServer(procs).start()
        assert server.url == f"redis://127.0.0.1:{server.port}/0"
        assert redis_server.command(server.port, "PING") == b"+PONG"
        client = _client(server)
        assert client.ping() is True
        assert client.set("session:1", "instance-a") is True
        assert client.get("session:1") == b"instance-a"
        config = {k: v for name in ("bind", "save", "appendonly", "dir", "daemonize")
                  for k, v in client.config_get(name).items()}
        assert config == {"bind": "127.0.0.1", "save": "", "appendonly": "no",
                          "dir": str(tmp_path / "redis"), "daemonize": "no"}
        client.close()
    assert (tmp_path / "redis.1.log").read_text().strip(), "redis logged nothing to the workdir"


def test_flush_deletes_every_key(tmp_path):
    require_conformance(need_redis=True)
    with Processes(tmp_path) as procs:
        server = RedisServer(procs).start()
        client = _client(server)
        client.set("a", "1")
        client.select(3)
        client.set("b", "2")
        server.flush()
        assert client.dbsize() == 0
        client.select(0)
        assert client.dbsize() == 0
        client.close()


def test_a_restart_keeps_the_port_and_loses_the_data(tmp_path):
    require_conformance(need_redis=True)
    with Processes(tmp_path) as procs:
        server = RedisServer(procs).start()
        port, url, first = server.port, server.url, server.process.pid
        client = _client(server)
        client.set("event:1", "payload")
        client.close()
        server.stop()
        server.start()
        assert (server.port, server.url) == (port, url)
        assert server.process.pid != first and not alive(first)
        client = _client(server)
        assert client.get("event:1") is None
        assert client.dbsize() == 0
        client.close()
        server.restart()
        assert server.port == port and server.incarnation == 3
    assert sorted(p.name for p in tmp_path.glob("redis.*.log")) == \
        ["redis.1.log", "redis.2.log", "redis.3.log"]


def test_stop_leaves_no_process_and_nothing_listening(tmp_path):
    require_conformance(need_redis=True)
    with Processes(tmp_path) as procs:
        server = RedisServer(procs).start()
        pid = server.process.pid
        assert alive(pid)
        server.stop()
        assert not alive(pid)
        with pytest.raises(OSError):
            redis_server.command(server.port, "PING")
        with pytest.raises(HarnessError, match="did not answer"):
            server.flush()


def test_leaving_the_processes_context_stops_redis(tmp_path):
    require_conformance(need_redis=True)
    with Processes(tmp_path) as procs:
        server = RedisServer(procs).start()
        pid = server.process.pid
        assert alive(pid)
    assert not server.process.alive()
    assert not alive(pid)


def test_a_restart_on_a_taken_port_is_a_harness_error_naming_it(tmp_path):
    require_conformance(need_redis=True)
    with Processes(tmp_path) as procs:
        server = RedisServer(procs).start()
        server.stop()
        with socket.socket() as squatter:
            squatter.bind(("127.0.0.1", server.port))
            squatter.listen(1)
            with pytest.raises(HarnessError, match=f"port {server.port}"):
                server.start()
        assert not server.process.alive()


_HARNESS = """
import sys, time
from pathlib import Path
from simulations.conformance.processes import Processes
from simulations.conformance.redis_server import RedisServer
with Processes(Path(sys.argv[1])) as procs:
    print(RedisServer(procs).start().process.pid, flush=True)
    time.sleep(600)
"""


def test_a_harness_killed_with_sigkill_leaves_no_redis_behind(tmp_path):
    """Nothing stops Redis but its parent-death signal: the harness gets no chance to."""
    require_conformance(need_redis=True)
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs Linux /proc")
    proc = subprocess.Popen([sys.executable, "-c", _HARNESS, str(tmp_path)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.strip().isdigit(), f"the harness did not start redis: {line!r}"
        pid = int(line)
        assert alive(pid)
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and alive(pid):
        time.sleep(0.1)
    assert not alive(pid), f"redis-server (pid {pid}) outlived the harness"


def test_missing_redis_server_is_named_with_its_fix(monkeypatch, tmp_path):
    monkeypatch.setattr(redis_server.shutil, "which", lambda name: None)
    monkeypatch.setattr(redis_server, "_FALLBACKS", ())
    problems = harness.missing_requirements(nginx=False, redis=True)
    assert "redis-server is not installed (Debian: apt-get install redis-server)" in problems
    assert not any("redis" in p for p in harness.missing_requirements(nginx=False))
    with Processes(tmp_path) as procs, pytest.raises(HarnessError, match="apt-get install redis"):
        RedisServer(procs).start()
    assert procs.children == []


def test_a_fleet_without_redis_server_is_named_before_any_cell_runs(monkeypatch, tmp_path,
                                                                   capsys):
    """Found by `make results` on a machine without Redis: the fleet's first shared-store cell
    raised HarnessError out of a worker, a traceback after a minute of other cells. The fleet
    asks for Redis up front when a scenario it runs shares its store or buffers."""
    from simulations.cli import main
    from simulations.conformance.fleet import needs_redis
    from simulations.scenarios import SCENARIOS
    assert needs_redis(SCENARIOS["shared_store_local_buffer"].config)
    assert not needs_redis(SCENARIOS["truncated_buffer_live_session"].config)
    monkeypatch.setattr(redis_server.shutil, "which", lambda name: None)
    monkeypatch.setattr(redis_server, "_FALLBACKS", ())
    assert main(["conformance", "--fleet", "--out", str(tmp_path / "out")]) == 2
    assert "redis-server is not installed (Debian: apt-get install redis-server)" in \
        capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_missing_redis_client_is_named_only_when_redis_is_needed(monkeypatch):
    monkeypatch.setitem(sys.modules, "redis", None)       # import redis: ImportError
    problem = "python package 'redis' is missing: pip install -e '.[conformance]'"
    assert problem in harness.missing_requirements(nginx=False, redis=True)
    assert problem not in harness.missing_requirements(nginx=False)


def test_requirements_are_found_without_importing_the_sdk(monkeypatch):
    """A missing SDK is named, and a present one is not imported to find it (2 s a run)."""
    monkeypatch.setitem(sys.modules, "mcp", None)
    assert "python package 'mcp' is missing: pip install -e '.[conformance]'" in \
        harness.missing_requirements(nginx=False)
    found = subprocess.run([sys.executable, "-c",
                            "import sys; from simulations.conformance import harness; "
                            "print(harness.missing_requirements(nginx=False), "
                            "'mcp' in sys.modules)"],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert found.stdout.split() == ["[]", "False"], found.stderr
