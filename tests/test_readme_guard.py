"""The README's guarded-server example, run as a user would: uvicorn serving the file as written,
then a resumption with a cursor the guard never issued and one on a session it never issued."""
import re
import sys
from pathlib import Path

from conformance_support import require_conformance

ROOT = Path(__file__).resolve().parent.parent


def _example() -> str:
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(# guarded_server\.py\n.*?)```", text, re.DOTALL)
    assert len(blocks) == 1, "the README has one guarded_server.py example"
    return blocks[0]


def test_the_readme_guard_example_serves_and_refuses(tmp_path):
    require_conformance()
    from simulations.conformance.processes import Processes, listening_socket
    from simulations.conformance.wire import WireClient
    (tmp_path / "guarded_server.py").write_text(_example())
    with Processes(tmp_path / "logs") as procs:
        sock = listening_socket()
        port = sock.getsockname()[1]
        proc = procs.spawn("guarded_server", [
            sys.executable, "-m", "uvicorn", "guarded_server:app", "--fd", str(sock.fileno()),
            "--app-dir", str(tmp_path), "--log-level", "warning"], pass_fds=[sock.fileno()])
        sock.close()
        url = f"http://127.0.0.1:{port}"
        procs.wait_ready(proc, url + "/")
        client = WireClient(url)
        init = client.initialize()
        call = client.post({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "work", "arguments": {"steps": 3}}}, until_label="done")
        assert call.status == 200 and any("done" in e.data for e in call.events)
        own = client.resume(init.events[-1].id)
        assert own.status == 200
        forged = client.resume("not-an-id-this-server-issued")
        assert (forged.status, forged.error_code) == (409, "cursor_unverifiable")
        stranger = client.resume(init.events[-1].id, session_id="0" * 32)
        assert (stranger.status, stranger.error_code) == (404, "session_not_found")
