"""What differential testing found: each disagreement as a named case with its minimal sequence,
what the model said before, what the real stack did, and how it was resolved. `replay` runs a
finding's sequence in lockstep against a real server today: every finding must now agree.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Dict, Iterable, List, NamedTuple, Optional, Tuple

from model.actions import Deliver, Disconnect, Emit, ForeignCursor, HalfOpen, Init, Reconnect

from .scope import SCOPE

if TYPE_CHECKING:
    from .lockstep import Lockstep


@dataclass(frozen=True)
class Finding:
    name: str
    title: str
    servers: Tuple[str, ...]      # the servers it showed on
    sequence: Tuple[object, ...]  # the minimal sequence Hypothesis shrank it to (model actions)
    model_said: str
    real_did: str
    resolution: str               # "model change", "guard fix" or "server defect"
    change: str                   # what changed, or the evidence for a defect
    #: the model as it was, for a model change: (gate, or None for the server's own; config
    #: overrides); replaying the sequence on it must disagree again (the witness that the
    #: lockstep sees the difference)
    before: Optional[Tuple[Optional[str], Dict[str, object]]] = None

    def lines(self) -> List[str]:
        return [describe(action) for action in self.sequence]


FINDINGS: Dict[str, Finding] = {f.name: f for f in (
    Finding(
        "resumed_stream_primed", "The Python SDK primes a resumed stream after its replay",
        ("sdk", "guard"),
        (Init(0, 0), Disconnect(0), Reconnect(0, 0)),
        "a resumed stream carries the replay, then live events; the client's cursor is the "
        "last event it applied",
        "after the replay the server stores and sends a fresh priming event (an id, no data): "
        "the client's cursor moves to it, and it takes a slot of the bounded store",
        "model change",
        "SystemConfig.priming_on_resume (set for both Python SDK deployments): the priming "
        "entry is buffered and queued behind the replay; the client takes it as its cursor "
        "when it reaches it (history event Primed)",
        before=(None, {"priming_on_resume": False})),
    Finding(
        "foreign_cursor_from_another_instance",
        "The guard could not tell a cursor another process issued from one it cannot read",
        ("guard",),
        (Init(0, 0), Disconnect(0), Init(1, 1), ForeignCursor(0, 1), Reconnect(0, 0)),
        "400 cursor_session_mismatch: the deployment's tagged ids name their session",
        "409 cursor_unverifiable: the guard looked the id's session key up in its own process "
        "only, and a key another process minted was unknown to it",
        "guard fix",
        "mcp_resume_guard: an id under any key other than the session's own was not issued on "
        "that session (keys are random and unique), so the guard now answers 400 "
        "cursor_session_mismatch whichever process minted it"),
    Finding(
        "typescript_unknown_cursor_detached",
        "The TypeScript SDK keeps a stream open for a cursor its store does not know",
        ("ts",),
        (Init(1, 1), Init(0, 1), Disconnect(0), ForeignCursor(0, 1), Reconnect(0, 1)),
        "200, an empty stream, then the server closes it (the Python SDK's answer)",
        "200 and the stream stays open: the example store returns an empty stream id and the "
        "transport registers the response under it, so no event of the session ever arrives",
        "model change",
        "gate sdk-typescript (model.policies.IMPLEMENTATIONS) with Effect.DETACHED: an open "
        "stream attached to no session's stream, which the stall property sees as dead",
        before=("sdk", {})),
    Finding(
        "half_open_resume_python",
        "The Python SDK ends a resumed stream after its replay while the old one is still "
        "attached",
        ("sdk", "guard"),
        (Init(0, 0), HalfOpen(0), Emit(1), Reconnect(0, 0)),
        "the resumed stream replays, then carries live events (and a priming event)",
        "the server still holds the abandoned connection for the stream id, so the resumption "
        "replays and closes without priming and without live events; the client must resume "
        "again",
        "model change",
        "action HalfOpen (the client's side is gone, the server still writes to it) and "
        "SystemConfig.on_attached_stream: \"replay_then_close\" (the Python SDK) or "
        "\"take_over\" (the TypeScript SDK closes the predecessor)",
        before=(None, {"on_attached_stream": "take_over"})),
    Finding(
        "half_open_resumed_stream_outlives_its_call",
        "A half-open resumed stream stays attached after the call's result",
        ("sdk", "guard"),
        (Init(0, 0), Disconnect(0), Emit(1), Emit(1), Emit(1), Reconnect(0, 0), Emit(1),
         Deliver(0), Deliver(0), HalfOpen(0), Reconnect(0, 0)),
        "a half-open connection holds the stream only while the call still has messages to "
        "send, so once the call is done a resumption replays, primes and stays open",
        "the Python SDK keeps a resumed stream registered until its connection ends, even after "
        "the call's result: the next resumption still replays and closes, without priming",
        "model change",
        "LiveSession.orphan says which stream the dead connection holds: \"call\" (ends with "
        "the call's result) or \"resumed\" (ends only with its connection)"),
)}


def describe(action) -> str:
    """An action as a line of a sequence: `Disconnect(client=0)`."""
    return repr(action)


class FindingRow(NamedTuple):
    """A finding's sequence replayed against one server today."""
    finding: str
    server: str
    agree: bool
    detail: str          # the disagreement, or what the run saw
    seconds: float

    def as_dict(self) -> Dict[str, object]:
        return dict(self._asdict())


def replay(finding: Finding, lock: "Lockstep") -> Optional[str]:
    """Run the finding's sequence in lockstep; None when the model and the server agree at
    every step, else the disagreement."""
    from .disagreement import Disagreement
    try:
        for action in finding.sequence:
            lock.step(action)
        lock.finish()
    except Disagreement as exc:
        return exc.what
    finally:
        lock.close()
    return None


def run_findings(names: Iterable[str], servers: Iterable[str], workdir: Path,
                 as_before: bool = False, workers: int = 1) -> List[FindingRow]:
    """Replay each named finding against each of `servers` it showed on, each on a fresh fleet
    in the differential run's default scope; `as_before`: on the model as it was before the
    finding's model change (findings without one are skipped); `workers` replays at a time."""
    from ..parallel import run_units
    units = [(name, server, workdir, as_before) for name in names for server in servers
             if server in FINDINGS[name].servers and
             not (as_before and FINDINGS[name].before is None)]
    return run_units(replay_on, units, workers)


def replay_on(name: str, server: str, workdir: Path, as_before: bool = False) -> FindingRow:
    """One finding's sequence against a fresh fleet of `server` (see `run_findings`)."""
    import anyio.from_thread

    from ..processes import Processes
    from .lockstep import Lockstep, deployment
    from .streams import StreamPool

    finding = FINDINGS[name]
    started = time.monotonic()
    config, policy = deployment(server, SCOPE["instances"], SCOPE["clients"],
                                SCOPE["messages"], SCOPE["capacity"])
    if as_before and finding.before is not None:
        policy = finding.before[0] or policy
        config = config.replace(**finding.before[1])
    with Processes(workdir / f"{name}-{server}") as procs, \
            anyio.from_thread.start_blocking_portal() as portal:
        fleet = [procs.server(f"i{i}", capacity=SCOPE["capacity"], kind=server)
                 for i in range(SCOPE["instances"])]
        pool = StreamPool(portal)
        try:
            problem = replay(finding, Lockstep(fleet, pool, server, config, policy, 1))
        finally:
            pool.close()
    detail = problem or f"{len(finding.sequence)} steps, every observation agrees"
    return FindingRow(name, server, problem is None, detail, round(time.monotonic() - started, 2))
