"""The real side of the stateless cases: the MCP Python SDK's server in its modern mode
(`modern_server.py`, started and stopped through `processes`, behind `nginx` round-robin for the
failover), a raw 2026-07-28 client that re-issues a broken call as a new request, and the
shared ledger that counts the tool's executions.

Nothing is inferred from timing: each break happens at a point the tool is paused at (or past,
per the ledger), and a run reads what each request did off the ledger. Invariant: the Outcome's
`broken` is read from the ledger as it was at the break (executed already?) and after the run
(executed since?), never from what the harness meant to do.
"""
from __future__ import annotations

import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional

from . import loopback
from .harness import attempt
from .nginx import Nginx
from .probe import RELEASE_PREFIX, HarnessError
from .processes import Processes, Restartable, listening_socket
from .stateless_cases import (
    CANCELLED,
    CASES,
    COMPLETED,
    EXECUTED_THEN_LOST,
    INCOMPLETE,
    OTHER_INSTANCE,
    RAN_ON,
    RESTARTED,
    SAME_PROCESS,
    Outcome,
    StatelessCase,
    predict,
)
from .stateless_report import Row
from .stateless_wire import StatelessClient, hold_name

#: seconds the server has to notice a closed POST (its handler cancelled) before the harness
#: lets the paused tool go on: one that runs on then executes, and the ledger says so
NOTICE_GRACE = 3.0
LEDGER_WAIT = 10.0       # seconds a request may take to reach a ledger event the drill awaits


class ModernInstance(Restartable):
    """A modern-mode SDK server (modern_server.py) on a fixed loopback port; `restart` brings
    up a new incarnation on the same port. Every instance of a drill appends to one ledger."""

    def __init__(self, procs: Processes, name: str, ledger: Path) -> None:
        super().__init__()
        self.procs, self.name, self.ledger = procs, name, ledger

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "ModernInstance":
        sock = listening_socket(self.port)
        self.port = sock.getsockname()[1]
        self.incarnation += 1
        argv = [sys.executable, "-m", "simulations.conformance.modern_server",
                "--fd", str(sock.fileno()), "--name", self.name,
                "--incarnation", str(self.incarnation), "--ledger", str(self.ledger)]
        try:
            self.process = self.procs.spawn(f"{self.name}.{self.incarnation}", argv,
                                            pass_fds=[sock.fileno()])
        finally:
            sock.close()
        self.procs.wait_ready(self.process, self.url + "/_harness/ready")
        return self

    def release(self, hold: str) -> None:
        """Let the tool paused on `hold` go on (a no-op if nothing waits on it)."""
        loopback.get(f"{self.url}{RELEASE_PREFIX}{hold}", timeout=2.0).raise_for_status()


def read_ledger(path: Path) -> List[Dict[str, object]]:
    """The ledger's complete lines (one being written, with no newline yet, is left out)."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in text.split("\n")[:-1] if line]


def has(lines: List[Dict[str, object]], request_id: str, *events: str) -> bool:
    return any(e["request_id"] == request_id and e["event"] in events for e in lines)


def wait_ledger(path: Path, request_id: str, events: Iterable[str], timeout: float) -> bool:
    """Wait (at most `timeout` s) until the ledger has one of `events` for `request_id`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if has(read_ledger(path), request_id, *events):
            return True
        time.sleep(0.02)
    return False


@dataclass
class Env:
    procs: Processes

    @property
    def ledger(self) -> Path:
        return self.procs.workdir / "ledger.jsonl"

    def instance(self, name: str) -> ModernInstance:
        return ModernInstance(self.procs, name, self.ledger).start()


@dataclass
class Observed:
    outcome: Outcome
    evidence: str


def _observe(env: Env, client: StatelessClient, at_break: List[Dict], tags: List[str]) -> Observed:
    """The Outcome, read off the ledger and the client's posts (the first post is the broken
    request, the second the re-issue of its call)."""
    lines = read_ledger(env.ledger)
    first, reissue = client.posts[0], client.posts[1]
    executions = tuple(sum(1 for e in lines if e["tag"] == tag and e["event"] == "executed")
                       for tag in tags)
    broken = EXECUTED_THEN_LOST if has(at_break, first.request_id, "executed") else \
        RAN_ON if has(lines, first.request_id, "executed") else CANCELLED
    started = {e["request_id"]: (e["instance"], e["incarnation"]) for e in lines
               if e["event"] == "started"}
    if first.request_id not in started or reissue.request_id not in started:
        raise HarnessError(f"a request never started: ledger {lines}")
    (inst1, inc1), (inst2, inc2) = started[first.request_id], started[reissue.request_id]
    reissue_on = OTHER_INSTANCE if inst1 != inst2 else RESTARTED if inc1 != inc2 \
        else SAME_PROCESS
    reissues = sum(max(0, sum(p.tag == tag for p in client.posts) - 1) for tag in tags)
    done = all(any(f"{tag}:done" in p.labels for p in client.posts) for tag in tags)
    outcome = Outcome(executions, broken, reissue_on, reissues,
                      sum(1 for n in executions if n > 1), COMPLETED if done else INCOMPLETE)
    return Observed(outcome, _evidence(client, lines))


def _evidence(client: StatelessClient, lines: List[Dict]) -> str:
    parts = []
    for post in client.posts:
        mine = [e for e in lines if e["request_id"] == post.request_id]
        where = f"{mine[0]['instance']}.{mine[0]['incarnation']}" if mine else "?"
        parts.append(f"POST id {post.request_id} ({post.tag}) on {where}: client got "
                     f"{post.labels}, {post.ended or 'open'}; ledger "
                     f"{[e['event'] for e in mine]}")
    return "; ".join(parts)


def _break(env: Env, half_open: bool) -> Observed:
    """One call, paused after its first progress notification; the client closes the POST (or
    leaves it half-open), the tool is let go once the server had NOTICE_GRACE s to notice, and
    the client re-issues once the broken request has ended."""
    server = env.instance("A")
    client = StatelessClient(server.url)
    try:
        first = client.call("A", pause_after=1)
        if not first.read_until("A:1"):
            raise HarnessError(f"no first progress notification: {first.labels} {first.ended}")
        at_break = read_ledger(env.ledger)
        if not half_open:
            first.close()
        wait_ledger(env.ledger, first.request_id, ("cancelled", "returned"), NOTICE_GRACE)
        server.release(hold_name("A", 1))
        if not wait_ledger(env.ledger, first.request_id, ("cancelled", "returned"),
                           LEDGER_WAIT):
            raise HarnessError("the broken request neither returned nor was cancelled")
        client.call("A").read_until()
        return _observe(env, client, at_break, ["A"])
    finally:
        client.close()


def stateless_break_seen(env: Env) -> Observed:
    return _break(env, half_open=False)


def stateless_break_half_open(env: Env) -> Observed:
    return _break(env, half_open=True)


def _restart(env: Env, after_effect: bool) -> Observed:
    """One call; the process is stopped (SIGTERM) after the first progress notification, or
    once the side effect is in the ledger and the tool pauses before its result; the client
    reads its stream to the break, a new incarnation starts, the client re-issues."""
    server = env.instance("A")
    client = StatelessClient(server.url)
    try:
        first = client.call("A", pause_after=0 if after_effect else 1,
                            pause_result=after_effect)
        if not first.read_until("A:2" if after_effect else "A:1"):
            raise HarnessError(f"the call's progress never arrived: {first.labels}")
        if after_effect and not wait_ledger(env.ledger, first.request_id, ("executed",),
                                            LEDGER_WAIT):
            raise HarnessError("the call never executed")
        at_break = read_ledger(env.ledger)
        server.stop()
        first.read_until()
        server.start()
        client.call("A").read_until()
        return _observe(env, client, at_break, ["A"])
    finally:
        client.close()


def stateless_restart_mid_call(env: Env) -> Observed:
    return _restart(env, after_effect=False)


def stateless_restart_result_lost(env: Env) -> Observed:
    return _restart(env, after_effect=True)


def stateless_failover_round_robin(env: Env) -> Observed:
    """Two calls through nginx round-robin over two instances; the instance serving the first
    stops once the call's side effect is in the ledger (its result paused); the client
    re-issues the call through nginx, then sends the second. The scenario's last step (the
    stopped instance starts again) changes nothing the client sees and is left out."""
    servers = {name: env.instance(name) for name in ("A", "B")}
    lb = Nginx(env.procs, "round_robin", [s.port for s in servers.values()])
    client = StatelessClient(lb.url)
    try:
        first = client.call("A", pause_result=True)
        if not first.read_until("A:2") or not wait_ledger(env.ledger, first.request_id,
                                                          ("executed",), LEDGER_WAIT):
            raise HarnessError(f"the first call never executed: {first.labels}")
        at_break = read_ledger(env.ledger)
        holder = next(e["instance"] for e in at_break if e["request_id"] == first.request_id)
        servers[holder].stop()
        first.read_until()
        client.call("A").read_until()
        client.call("B").read_until()
        observed = _observe(env, client, at_break, ["A", "B"])
        observed.evidence = f"first call served by {holder} ({first.upstream}), stopped; " \
            + observed.evidence
        return observed
    finally:
        client.close()


DRILLS: Dict[str, Callable[[Env], Observed]] = {
    "stateless_break_seen": stateless_break_seen,
    "stateless_break_half_open": stateless_break_half_open,
    "stateless_restart_mid_call": stateless_restart_mid_call,
    "stateless_restart_result_lost": stateless_restart_result_lost,
    "stateless_failover_round_robin": stateless_failover_round_robin,
}


def run_case(case: StatelessCase, workdir: Path) -> Row:
    """The case on real processes (under `workdir/<case>`) beside the model's prediction; a
    case the harness could not run is a row that says so."""
    model = predict(case)
    started = time.monotonic()
    with Processes(Path(workdir) / case.name) as procs:
        real, evidence = attempt(lambda: DRILLS[case.name](Env(procs)))
    differences = model.differences(real) if real is not None else ["no real outcome"]
    explained = case.explained if differences and real is not None else ""
    return Row(case.name, case.topology, model, real, not differences, differences, evidence,
               case.note, round(time.monotonic() - started, 2), explained)


def run_named_case(name: str, workdir: Path) -> Row:
    """`run_case` of the case called `name` (a unit a worker process can be given)."""
    return run_case(CASES[name], workdir)


def run_all(names: Iterable[str], workdir: Optional[Path] = None,
            progress: Optional[Callable[[Row], None]] = None, workers: int = 1) -> List[Row]:
    """Every named case, in order, `workers` at a time; logs (and each case's ledger) under
    `workdir`, or a temporary folder removed when every row is settled."""
    import shutil

    from .parallel import run_units
    own = workdir is None
    root = Path(tempfile.mkdtemp(prefix="mcp-stateless-")) if own else Path(workdir)
    rows: List[Row] = []
    try:
        rows = run_units(run_named_case, [(name, root) for name in names], workers, progress)
    finally:
        if own and rows and all(r.settled for r in rows):
            shutil.rmtree(root, ignore_errors=True)
    return rows
