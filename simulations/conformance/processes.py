"""Starting and stopping the harness's processes: every wait is bounded, every process is
stopped by its pid (SIGTERM, then SIGKILL), and `Processes` stops whatever is left on exit."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional

import httpx

from . import loopback
from .lifetime import die_with_the_harness
from .probe import STORED_PREFIX, HarnessError
from .server_forks import Template, exited, forking, with_fd

READY_TIMEOUT = 20.0      # seconds a server or nginx may take to answer its first request
STOP_TIMEOUT = 5.0        # seconds between SIGTERM and SIGKILL


def listening_socket(port: int = 0) -> socket.socket:
    """A socket listening on 127.0.0.1:`port` (0: an ephemeral port), inheritable by a child."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        raise HarnessError(f"cannot listen on 127.0.0.1:{port}: {exc}") from exc
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Child:
    """A process the harness started: its name, log and pid; `stop` ends it."""
    name: str
    log: Path
    pid: int

    def alive(self) -> bool:
        return not self.ended(0.0)

    @property
    def returncode(self) -> Optional[int]:
        raise NotImplementedError

    def ended(self, timeout: float) -> bool:
        """Whether it has ended, waiting up to `timeout` s (and reaping it where we can)."""
        raise NotImplementedError

    def stop(self) -> None:
        """SIGTERM the process by pid; after STOP_TIMEOUT, SIGKILL its process group (it leads
        one: its own session) and whatever it started (nginx's workers)."""
        if self.alive():
            os.kill(self.pid, signal.SIGTERM)
            if not self.ended(STOP_TIMEOUT):
                try:
                    os.killpg(self.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.ended(STOP_TIMEOUT)

    def tail(self, lines: int = 15) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


class Process(Child):
    """One child process, started in its own process group."""

    def __init__(self, name: str, argv: List[str], log: Path, pass_fds=()) -> None:
        self.name = name
        self.log = log
        with open(log, "ab") as out:
            self.popen = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                          pass_fds=tuple(pass_fds), start_new_session=True,
                                          preexec_fn=die_with_the_harness)
        self.pid = self.popen.pid

    @property
    def returncode(self) -> Optional[int]:
        return self.popen.returncode

    def ended(self, timeout: float) -> bool:
        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return True


class ForkedServer(Child):
    """A Python server incarnation forked from its `Processes`'s pre-imported template
    (`server_forks`): the same command line and log as a `Process`, its own session, stopped
    the same way (SIGTERM by pid, then SIGKILL to its process group); watched through a
    pidfd, reaped by the template."""

    def __init__(self, name: str, template: Template, argv: List[str], log: Path,
                 listener: socket.socket) -> None:
        self.name, self.log, self.template = name, log, template
        self.pid, self.pidfd = template.fork(argv, listener, str(log))
        self.code: Optional[int] = None

    @property
    def returncode(self) -> Optional[int]:
        """Its exit code once it ended (None while it runs, or if the template is gone)."""
        if self.code is None and not self.alive():
            try:
                self.code = self.template.status(self.pid)
            except OSError:
                return None
        return self.code

    def ended(self, timeout: float) -> bool:
        return self.pidfd < 0 or exited(self.pidfd, timeout)

    def stop(self) -> None:
        """As `Child.stop`, then close the pidfd (the template reaps the process)."""
        super().stop()
        if self.pidfd >= 0 and exited(self.pidfd):
            os.close(self.pidfd)
            self.pidfd = -1


#: the TypeScript SDK's server (Node); its package.json and lockfile pin the SDK
TS_DIR = Path(__file__).resolve().parent / "ts"
TS_SERVER = TS_DIR / "server.mjs"
#: the servers a case can run against: the Python SDK, the Python SDK behind the guard, the
#: TypeScript SDK
#: "guard-<policy>": the Python SDK behind ResumptionGuard deciding with that policy
GUARD_POLICIES = {"guard": "strict", **{f"guard-{p}": p for p in
                                        ("naive", "range", "generation", "provenance", "sdk")}}
KINDS = ("sdk", "ts", *GUARD_POLICIES)


def missing_node() -> Optional[str]:
    """Why the TypeScript SDK server cannot start here, or None."""
    import shutil
    if shutil.which("node") is None:
        return "node is not on PATH (the TypeScript SDK server needs Node >= 20)"
    if not (TS_DIR / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        return f"the TypeScript SDK is not installed: npm ci --prefix {TS_DIR}"
    return None


class Restartable:
    """A service the harness runs as successive incarnations on one loopback port: `start`
    (a subclass's) brings up incarnation n+1, `stop` ends the running one by its pid."""

    def __init__(self) -> None:
        self.port = 0
        self.incarnation = 0
        self.process: Optional[Child] = None

    def start(self) -> "Restartable":
        raise NotImplementedError

    def stop(self) -> None:
        """Stop the running incarnation (SIGTERM, then SIGKILL)."""
        if self.process is not None:
            self.process.stop()

    def restart(self) -> None:
        self.stop()
        self.start()


class ServerInstance(Restartable):
    """A real MCP SDK server on a fixed loopback port; `restart` brings up a new incarnation on
    the same port (the harness re-binds it and hands the socket over)."""

    def __init__(self, procs: "Processes", name: str, capacity: int, retry_ms: int,
                 kind: str, ids: str = "tagged", keying: str = "session",
                 registry: str = "", shared_buffers: bool = False) -> None:
        if kind not in KINDS:
            raise HarnessError(f"unknown server kind {kind!r}; valid: {', '.join(KINDS)}")
        super().__init__()
        self.procs, self.name = procs, name
        self.capacity, self.retry_ms, self.kind = capacity, retry_ms, kind
        self.ids, self.keying = ids, keying       # a guarded server's id scheme and keying
        self.registry = registry                  # its shared session registry's URL, if any
        self.shared_buffers = shared_buffers      # its replay buffers in that Redis too

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "ServerInstance":
        sock = listening_socket(self.port)
        self.port = sock.getsockname()[1]
        self.incarnation += 1
        args = ["--fd", "{fd}", "--incarnation", str(self.incarnation),
                "--capacity", str(self.capacity), "--retry-ms", str(self.retry_ms)]
        name = f"{self.name}.{self.incarnation}"
        if self.kind != "ts":
            args += (["--guard", "--policy", GUARD_POLICIES[self.kind], "--ids", self.ids,
                      "--keying", self.keying] if self.kind in GUARD_POLICIES else []) + \
                (["--registry", self.registry] if self.registry else []) + \
                (["--shared-buffers"] if self.shared_buffers else [])
        try:
            if self.kind != "ts" and forking():
                self.process = self.procs.fork(name, args, sock)
            else:
                command = ["node", str(TS_SERVER)] if self.kind == "ts" else \
                    [sys.executable, "-m", "simulations.conformance.server"]
                self.process = self.procs.spawn(name, command + with_fd(args, sock.fileno()),
                                                pass_fds=[sock.fileno()])
        finally:
            sock.close()      # the child holds it now; a stopped child leaves the port closed
        self.procs.wait_ready(self.process, self.url + STORED_PREFIX + "-")
        return self


class Processes:
    """Owns every process a case starts; a context manager that stops them all on exit."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.children: List[Child] = []
        self.template: Optional[Template] = None
        self.template_process: Optional[Child] = None

    def spawn(self, name: str, argv: List[str], pass_fds=()) -> Process:
        proc = Process(name, argv, self.workdir / f"{name}.log", pass_fds)
        self.children.append(proc)
        return proc

    def fork(self, name: str, args: List[str], listener: socket.socket) -> ForkedServer:
        """A Python server incarnation forked from the pre-imported template (`server_forks`,
        started on first use): `args` as for `python -m simulations.conformance.server`,
        "{fd}" for the socket."""
        if self.template is None:
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            argv = [sys.executable, "-m", "simulations.conformance.server_forks",
                    str(theirs.fileno())]
            try:
                self.template_process = self.spawn("server-template", argv,
                                                   pass_fds=[theirs.fileno()])
            finally:
                theirs.close()
            self.template = Template(ours)
        try:
            proc = ForkedServer(name, self.template, args, self.workdir / f"{name}.log",
                                listener)
        except OSError as exc:
            raise HarnessError(f"the server template could not start {name}: {exc}:\n"
                               f"{self.template_process and self.template_process.tail()}"
                               ) from exc
        self.children.append(proc)
        return proc

    def wait_ready(self, proc: Child, url: str) -> None:
        """Poll `url` until it answers (any status) or READY_TIMEOUT passes."""
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if not proc.alive():
                raise HarnessError(f"{proc.name} exited with {proc.returncode}:\n"
                                   f"{proc.tail()}")
            try:
                loopback.get(url, timeout=1.0)
                return
            except httpx.HTTPError:
                time.sleep(0.05)
        proc.stop()
        raise HarnessError(f"{proc.name} did not answer {url} within {READY_TIMEOUT:.0f} s:\n"
                           f"{proc.tail()}")

    def server(self, name: str, capacity: int = 64, retry_ms: int = 200,
               kind: str = "sdk", ids: str = "tagged", keying: str = "session",
               registry: str = "", shared_buffers: bool = False) -> ServerInstance:
        return ServerInstance(self, name, capacity, retry_ms, kind, ids, keying,
                              registry, shared_buffers).start()

    def stop_all(self) -> None:
        """Stop every child, the latest first (so the template after its forks)."""
        for proc in reversed(self.children):
            proc.stop()
        if self.template is not None:
            self.template.close()
            self.template = None

    def __enter__(self) -> "Processes":
        return self

    def __exit__(self, *exc) -> None:
        self.stop_all()
