"""A Redis server for a case's fleet, started by the harness on loopback with a generated config.

Invariants: it listens on 127.0.0.1 only; it never persists (no RDB snapshots, no append-only
file), so a restart starts empty; its config, working directory and log are inside the case's
workdir; it is a child of `Processes`, stopped by pid like the others, and dies with the harness.
Readiness is a PING answered +PONG over a raw socket: this module imports no Redis client.
"""
from __future__ import annotations

import os
import shutil
import socket
import time
from typing import Optional

from .probe import HarnessError
from .processes import READY_TIMEOUT, Process, Processes, Restartable, free_port

START_ATTEMPTS = 3
_FALLBACKS = ("/usr/bin/redis-server", "/usr/local/bin/redis-server")

_CONFIG = """\
bind 127.0.0.1
port {port}
daemonize no
save ""
appendonly no
dir {dir}
logfile ""
"""


def redis_binary() -> str:
    """The redis-server executable, or HarnessError naming the fix."""
    found = shutil.which("redis-server") or next(
        (p for p in _FALLBACKS if os.path.exists(p)), None)
    if found is None:
        raise HarnessError("redis-server is not installed (Debian: apt-get install redis-server)")
    return found


def missing_redis() -> Optional[str]:
    """Why a Redis server cannot start here (one line naming the fix), or None."""
    try:
        redis_binary()
    except HarnessError as exc:
        return str(exc)
    return None


def command(port: int, *args: str, timeout: float = 1.0) -> bytes:
    """Send one command (RESP) to 127.0.0.1:`port` and return the first line of its reply,
    without its CRLF (b"+PONG", b"+OK"). OSError when nothing answers."""
    request = f"*{len(args)}\r\n".encode()
    for arg in args:
        data = arg.encode()
        request += b"$%d\r\n%s\r\n" % (len(data), data)
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(request)
        reply = b""
        while not reply.endswith(b"\r\n"):
            chunk = sock.recv(4096)
            if not chunk:
                raise ConnectionError(f"redis on port {port} closed the connection")
            reply += chunk
    return reply.split(b"\r\n", 1)[0]


class RedisServer(Restartable):
    """One Redis server owned by `procs` (`RedisServer(procs).start()`, as `Nginx(procs, ...)`:
    processes.py cannot import this module without an import cycle). The first `start` picks a
    free port (another process may take it before Redis binds it: START_ATTEMPTS tries); every
    later `start` reuses it, so `url` is stable across restarts; each incarnation has its log,
    and its data is gone when it stops."""

    def __init__(self, procs: Processes, name: str = "redis") -> None:
        super().__init__()
        self.binary = redis_binary()
        self.procs, self.name = procs, name
        self.workdir = procs.workdir / name
        self.workdir.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> "RedisServer":
        """Start an incarnation and return once it answers PING; HarnessError if it does not."""
        if self.process is not None and self.process.alive():
            raise HarnessError(f"{self.name} is already running (pid {self.process.pid})")
        if self.port:
            self._start_on(self.port)
            return self
        for attempt in range(1, START_ATTEMPTS + 1):
            # The port is free when picked; another process may take it before Redis binds it.
            try:
                self._start_on(free_port())
                break
            except HarnessError:
                self.port = 0
                if attempt == START_ATTEMPTS:
                    raise
        return self

    def _start_on(self, port: int) -> None:
        self.port = port
        self.incarnation += 1
        conf = self.workdir / "redis.conf"
        conf.write_text(_CONFIG.format(port=port, dir=self.workdir))
        self.process = self.procs.spawn(f"{self.name}.{self.incarnation}",
                                        [self.binary, str(conf)])
        self._wait_ready(self.process)

    def _wait_ready(self, proc: Process) -> None:
        """Poll with PING until +PONG or READY_TIMEOUT passes (then stop it)."""
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if not proc.alive():
                raise HarnessError(f"{proc.name} exited with {proc.returncode} (port "
                                   f"{self.port}):\n{proc.tail()}")
            try:
                if command(self.port, "PING") == b"+PONG":
                    return
            except OSError:
                pass
            time.sleep(0.05)
        proc.stop()
        raise HarnessError(f"{proc.name} did not answer PING on 127.0.0.1:{self.port} within "
                           f"{READY_TIMEOUT:.0f} s:\n{proc.tail()}")

    def flush(self) -> None:
        """Delete every key in every database of the running incarnation."""
        try:
            reply = command(self.port, "FLUSHALL")
        except OSError as exc:
            raise HarnessError(f"{self.name} on port {self.port} did not answer: {exc}") from exc
        if reply != b"+OK":
            raise HarnessError(f"{self.name} answered FLUSHALL with {reply!r}")
