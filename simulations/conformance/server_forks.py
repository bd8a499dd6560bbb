"""Python SDK server incarnations forked from a pre-imported template process.

Starting `python -m simulations.conformance.server` costs about 1.5 s of CPU on a 2-core
machine, nearly all of it importing the MCP SDK, Starlette and uvicorn, and a differential run
restarts servers a few hundred times. So a harness's `Processes` starts one template process on
its first Python server: it imports the server module and uvicorn once and then waits on a
control socket. Every incarnation is a fork of it: a new process that has served nothing and
holds nothing but loaded modules (no thread, no event loop, no socket but the listener it is
handed), ready in about 0.15 s. The fork runs exactly what the command runs (`server.main` with
the same arguments) on the listening socket the harness hands over, in its own session (so
`stop` can end its process group), writing its log where the command would, and dying with the
template, which dies with the harness.

The harness watches each fork through a pidfd the template opens at the fork (so no pid can be
reused in between) and asks the template for its exit status. `MCP_CONFORMANCE_EXEC=1` starts
every incarnation as its own interpreter instead (the same behaviour, slower).

    python -m simulations.conformance.server_forks CONTROL_FD    (started by the harness)
"""
from __future__ import annotations

import json
import os
import select
import socket
import sys
import threading
import traceback
from typing import Dict, List, Optional, Tuple

from .lifetime import die_with_the_harness

#: set to 1 to exec a new interpreter per incarnation instead of forking the template
EXEC_VARIABLE = "MCP_CONFORMANCE_EXEC"
_MESSAGE = 1 << 16


def forking() -> bool:
    """Whether Python servers start as forks of a template (not under MCP_CONFORMANCE_EXEC=1,
    and only where the platform has pidfds and descriptor passing)."""
    return os.environ.get(EXEC_VARIABLE, "") != "1" and hasattr(os, "pidfd_open") and \
        hasattr(socket, "send_fds") and hasattr(os, "fork")


def with_fd(args: List[str], fd: int) -> List[str]:
    """A server's arguments with the listening socket's descriptor number where "{fd}"
    stands (the harness knows it only once the socket is in the process that serves it)."""
    return [str(fd) if arg == "{fd}" else arg for arg in args]


def exited(pidfd: int, timeout: float = 0.0) -> bool:
    """Whether the process behind `pidfd` has ended (waiting up to `timeout` s for it)."""
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    return bool(poller.poll(timeout * 1000))


class Template:
    """The harness's end of a template process's control socket (one request at a time)."""

    def __init__(self, control: socket.socket) -> None:
        self.control = control
        self.lock = threading.Lock()

    def _ask(self, request: dict, fds: List[int] = ()) -> Tuple[dict, List[int]]:
        with self.lock:
            socket.send_fds(self.control, [json.dumps(request).encode()], list(fds))
            message, got, _, _ = socket.recv_fds(self.control, _MESSAGE, 1)
        if not message:
            raise OSError("the server template closed its control socket")
        return json.loads(message), got

    def fork(self, argv: List[str], listener: socket.socket, log: str) -> Tuple[int, int]:
        """Fork an incarnation running the server's command line `argv` ("{fd}" where the
        listener's number goes) with its output appended to `log`: (its pid, a pidfd)."""
        answer, fds = self._ask({"op": "fork", "argv": argv, "log": log}, [listener.fileno()])
        if "error" in answer or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            raise OSError(answer.get("error", "the server template sent no pidfd"))
        return answer["pid"], fds[0]

    def status(self, pid: int) -> Optional[int]:
        """A fork's exit code (negative: the signal that ended it), None while it runs."""
        return self._ask({"op": "status", "pid": pid})[0]["status"]

    def close(self) -> None:
        self.control.close()


# -- the template process --------------------------------------------------------------------

def _reap(statuses: Dict[int, int]) -> None:
    """Collect every ended fork's exit code."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        statuses[pid] = os.waitstatus_to_exitcode(status)


def _run_fork(control: socket.socket, argv: List[str], listener: int, log: str) -> None:
    """In the fork: never returns."""
    code = 1
    try:
        control.close()
        os.setsid()
        die_with_the_harness()                 # with the template, which dies with the harness
        out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.close(out)
        from .server import main
        code = main(with_fd(argv, listener))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def serve_template(control: socket.socket) -> int:
    """Import the server once, then fork an incarnation per request until the harness closes
    the control socket."""
    import uvicorn  # noqa: F401  (the preload: what every incarnation would import)

    from . import server  # noqa: F401
    assert threading.active_count() == 1, "the template must not start threads before forking"
    statuses: Dict[int, int] = {}
    while True:
        message, fds, _, _ = socket.recv_fds(control, _MESSAGE, 1)
        if not message:
            return 0
        request = json.loads(message)
        _reap(statuses)
        if request["op"] == "status":
            socket.send_fds(control, [json.dumps({"status": statuses.get(request["pid"])})
                                      .encode()], [])
            continue
        pid = os.fork()
        if pid == 0:
            _run_fork(control, request["argv"], fds[0], request["log"])
        for fd in fds:
            os.close(fd)
        pidfd = os.pidfd_open(pid)   # not reaped before this: no pid reuse in between
        socket.send_fds(control, [json.dumps({"pid": pid}).encode()], [pidfd])
        os.close(pidfd)


if __name__ == "__main__":
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        sys.exit("usage: python -m simulations.conformance.server_forks CONTROL_FD")
    sys.exit(serve_template(socket.socket(fileno=int(sys.argv[1]))))
