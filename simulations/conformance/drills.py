"""The real side of each case: what the harness does to real MCP SDK servers, and what it saw.

Each drill starts its own processes (through `env.procs`), drives one case and returns an
Observed: the Outcome (comparable with the model's) and the evidence behind it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, NamedTuple, Optional
from uuid import uuid4

import anyio

from .nginx import Nginx
from .outcome import (
    COMPLETED,
    EMPTY,
    EMPTY_CLOSE,
    FROM_HEAD,
    GAP,
    NO_CLIENT,
    REINITIALIZED,
    REJECTED,
    REPLAY,
    Outcome,
    classify_stream,
    code_of_refusal,
)
from .predict import SDK_CLIENTS
from .probe import HarnessError
from .processes import Processes, ServerInstance
from .sdk_driver import ClientRun, run_sdk_client
from .wire import Answer, WireClient, release, wait_stored

STICKY_DRAWS = 16        # sessions drawn before giving up on one that nginx's hash keeps


@dataclass
class Env:
    procs: Processes
    kind: str                 # the server: "sdk", "guard" or "ts" (processes.KINDS)
    retry_ms: int = 200

    def server(self, name: str, capacity: int = 64) -> ServerInstance:
        return self.procs.server(name, capacity=capacity, retry_ms=self.retry_ms,
                                 kind=self.kind)


class Observed(NamedTuple):
    outcome: Outcome
    evidence: str


def _labels(tag: str, count: int) -> List[str]:
    return [f"{tag}:{i}" for i in range(1, count + 1)] + [f"{tag}:done"]


def _raw_outcome(answer: Answer, own_tag: str, expected: List[str],
                 retained: Optional[List[str]] = None) -> Outcome:
    if answer.status != 200:
        return Outcome(answer.status, code_of_refusal(answer.status, answer.body), REJECTED,
                       NO_CLIENT)
    return Outcome(200, "ok", classify_stream(answer.labels, own_tag, expected, answer.closed,
                                              retained, answer.gap), NO_CLIENT)


def _owed(tag: str, count: int, call: Answer) -> List[str]:
    """The labels of call `tag` that did not reach the client before its stream closed."""
    return [label for label in _labels(tag, count) if label not in call.labels]


def _retained(tag: str, count: int, capacity: int) -> List[str]:
    """The labels of call `tag` a store keeping `capacity` events of the stream still holds."""
    return _labels(tag, count)[-capacity:]


def _observed(answer: Answer, own_tag: str, owed: List[str],
              retained: Optional[List[str]] = None) -> Observed:
    return Observed(_raw_outcome(answer, own_tag, owed, retained), _raw_evidence(answer))


def _raw_evidence(answer: Answer) -> str:
    if answer.status != 200:
        return f"GET answered {answer.status} {answer.body}"
    state = "closed" if answer.closed else "still open"
    return (f"GET answered 200 with {'a gap notice, then ' if answer.gap else ''}"
            f"{answer.labels or 'no data events'}, {state}")


def _interrupted_call(env: Env, capacity: int, count: int, close_after: int):
    """A session with one tool call whose stream the server closed; returns the client, the
    cursor it holds and the labels still owed to it."""
    server = env.server("A", capacity)
    client = WireClient(server.url)
    client.initialize()
    call = client.call_stream(1, "A", count, close_after)
    wait_stored(server.url, "A")
    return client, call.events[-1].id, _owed("A", count, call)


def own_cursor(env: Env) -> Observed:
    client, cursor, owed = _interrupted_call(env, 64, 6, 2)
    answer = client.resume(cursor, until_label="A:done")
    return _observed(answer, "A", owed, _retained("A", 6, 64))


def evicted_cursor(env: Env) -> Observed:
    client, cursor, owed = _interrupted_call(env, 3, 9, 1)
    answer = client.resume(cursor, until_label="A:done")
    return _observed(answer, "A", owed, _retained("A", 9, 3))


def _two_sessions(env: Env):
    """One server and two initialized raw clients on it."""
    server = env.server("A")
    a, b = WireClient(server.url), WireClient(server.url)
    a.initialize()
    b.initialize()
    return server, a, b


def foreign_cursor(env: Env) -> Observed:
    server, a, b = _two_sessions(env)
    call_a = a.call_stream(1, "A", 6, 2)
    call_b = b.call_stream(2, "B", 2, 2)
    wait_stored(server.url, "A")
    wait_stored(server.url, "B")
    answer = b.resume(call_a.events[-1].id, until_label="A:done")
    return _observed(answer, "B", _owed("B", 2, call_b), _retained("B", 2, 64))


def same_request_id(env: Env) -> Observed:
    server, a, b = _two_sessions(env)
    # Both sessions number their calls from 1, as every SDK client does; B's call pauses after
    # its stream closes while A's whole call runs, then finishes.
    call_b = b.call_stream(1, "B", 4, 2, hold="B")
    a.call_stream(1, "A", 4, 2)
    wait_stored(server.url, "A")
    release(server.url, "B")
    wait_stored(server.url, "B")
    answer = b.resume(call_b.events[-1].id, until_label="B:done")
    return _observed(answer, "B", _owed("B", 4, call_b), _retained("B", 4, 64))


def unknown_session(env: Env) -> Observed:
    client, cursor, owed = _interrupted_call(env, 64, 2, 1)
    answer = client.resume(cursor, session_id=uuid4().hex)
    return _observed(answer, "A", owed)


def _through_nginx(env: Env, mode: str):
    servers = [env.server("A"), env.server("B")]
    lb = Nginx(env.procs, mode, [s.port for s in servers])
    return servers, lb


def _holder(servers: List[ServerInstance], upstream: str) -> ServerInstance:
    for server in servers:
        if upstream.endswith(f":{server.port}"):
            return server
    raise HarnessError(f"nginx answered from {upstream!r}, not one of the harness's servers")


def _initialize_through(lb: Nginx):
    client = WireClient(lb.url)
    # No notifications/initialized: the resumption is the next request nginx balances.
    init = client.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "conformance-harness", "version": "1"}}})
    if init.status != 200:
        raise HarnessError(f"initialize through nginx failed: {init.status} {init.body}")
    client.session_id = init.headers["mcp-session-id"]
    return client, init


def round_robin_elsewhere(env: Env) -> Observed:
    servers, lb = _through_nginx(env, "round_robin")
    client, init = _initialize_through(lb)
    answer = client.resume(init.events[-1].id)
    return Observed(_raw_outcome(answer, "A", []),
                    f"initialize answered by {init.upstream}; resumption by {answer.upstream}: "
                    + _raw_evidence(answer))


def failover_round_robin(env: Env) -> Observed:
    servers, lb = _through_nginx(env, "round_robin")
    client, init = _initialize_through(lb)
    _holder(servers, init.upstream).stop()
    answer = client.resume(init.events[-1].id)
    return Observed(_raw_outcome(answer, "A", []),
                    f"holder {init.upstream} stopped; resumption answered by {answer.upstream}: "
                    + _raw_evidence(answer))


def _client_outcome(run: ClientRun, tag: str, count: int, close_after: int,
                    capacity: int = 64) -> Outcome:
    """The case's Outcome from what the SDK client did: the first resumption's answer, what its
    stream did (read off the labels the client applied, the gap notice and whether the server
    ended the stream) and where the client ended."""
    if run.outcome == "rejected_session":
        raise HarnessError("the SDK client's session was vetoed")
    if not run.resumes:
        raise HarnessError(f"the SDK client never resumed (outcome {run.outcome}: {run.detail})")
    first = run.resumes[0]
    client = REINITIALIZED if run.initializes > 1 else run.outcome
    if first.status != 200:
        return Outcome(first.status, code_of_refusal(first.status, first.body), REJECTED, client)
    whole = _labels(tag, count)
    # what the client applied before the stream closed (at most close_after labels), then every
    # retained event
    from_head = run.labels in [whole[:k] + _retained(tag, count, capacity)
                               for k in range(close_after + 1)]
    if first.gap:
        stream = GAP if from_head else f"gap, client applied {run.labels}"
    elif run.outcome == COMPLETED:
        stream = REPLAY if run.labels == whole else FROM_HEAD if from_head \
            else f"replay, client applied {run.labels}"
    else:
        stream = EMPTY_CLOSE if first.ended else EMPTY
    return Outcome(200, "ok", stream, client)


def _client_evidence(run: ClientRun) -> str:
    answers = ", ".join(str(x.status) for x in run.resumes)
    first = run.resumes[0] if run.resumes else None
    after = run.exchanges[run.exchanges.index(first) + 1:] if first is not None else []
    cursorless = sum(1 for x in after if x.method == "GET" and not x.last_event_id)
    return (f"SDK client: {len(run.resumes)} resumption(s) answered {answers}"
            + ("; the first stream ended by the server" if first is not None and first.ended
               else "") + "; "
            + (f"then {cursorless} GET(s) without a cursor; " if cursorless else "")
            + f"{run.initializes} initialize request(s) in all; {run.outcome}"
            + (f" ({run.detail})" if run.detail else ""))


def _sdk(env: Env, url: str, count: int, close_after: int, hook=None, veto=None,
         client: str = "") -> ClientRun:
    """An SDK's own client: `client` (a profile name) or, by default, the server's own SDK's
    (the TypeScript SDK's for `ts`, else the Python SDK's)."""
    from .node_driver import run_node_client
    profile = client or SDK_CLIENTS[env.kind]
    driver = run_node_client if profile == "sdk-typescript" else run_sdk_client

    async def main() -> ClientRun:
        return await driver(url, "A", count, close_after, before_resume=hook,
                            after_initialize=veto)
    return anyio.run(main)


def _finished(server: ServerInstance):
    """A hook holding the client's resumption until the call's result is stored."""
    async def hook() -> None:
        await anyio.to_thread.run_sync(wait_stored, server.url, "A")
    return hook


def own_cursor_sdk_client(env: Env) -> Observed:
    server = env.server("A")
    run = _sdk(env, server.url, 6, 2, hook=_finished(server))
    return Observed(_client_outcome(run, "A", 6, 2), _client_evidence(run))


def evicted_cursor_sdk_client(env: Env, client: str = "") -> Observed:
    server = env.server("A", capacity=3)
    run = _sdk(env, server.url, 9, 1, hook=_finished(server), client=client)
    return Observed(_client_outcome(run, "A", 9, 1, capacity=3), _client_evidence(run))


def evicted_cursor_ts_client(env: Env) -> Observed:
    return evicted_cursor_sdk_client(env, client="sdk-typescript")


def restart_then_resume(env: Env) -> Observed:
    server = env.server("A")

    async def restart() -> None:
        await anyio.to_thread.run_sync(wait_stored, server.url, "A")
        # Started from this (the main) thread, not a worker: the new process is tied to the
        # thread that forked it (lifetime.die_with_the_harness), and workers come and go.
        server.restart()
    run = _sdk(env, server.url, 4, 1, hook=restart)
    return Observed(_client_outcome(run, "A", 4, 1),
                    f"restarted as incarnation {server.incarnation}; " + _client_evidence(run))


def failover_sticky(env: Env) -> Observed:
    servers, lb = _through_nginx(env, "sticky")
    chosen: Dict[str, ServerInstance] = {}

    async def sticks(exchanges) -> bool:
        with anyio.move_on_after(5):
            while not any(x.rpc == "notifications/initialized" for x in exchanges):
                await anyio.sleep(0.02)
        by_rpc = {x.rpc: x.upstream for x in exchanges}
        if by_rpc.get("initialize") and by_rpc.get("initialize") == \
                by_rpc.get("notifications/initialized"):
            chosen["holder"] = _holder(servers, by_rpc["initialize"])
            return True
        return False

    async def stop_holder() -> None:
        await anyio.to_thread.run_sync(chosen["holder"].stop)

    for draw in range(1, STICKY_DRAWS + 1):
        run = _sdk(env, lb.url, 4, 1, hook=stop_holder, veto=sticks)
        if run.outcome != "rejected_session":
            return Observed(_client_outcome(run, "A", 4, 1),
                            f"session drawn {draw} time(s) until nginx's hash kept it on its "
                            f"instance; holder stopped; " + _client_evidence(run))
    raise HarnessError(f"no session out of {STICKY_DRAWS} hashed to the instance that created it")


DRILLS: Dict[str, Callable[[Env], Observed]] = {
    "own_cursor": own_cursor,
    "own_cursor_sdk_client": own_cursor_sdk_client,
    "evicted_cursor": evicted_cursor,
    "evicted_cursor_sdk_client": evicted_cursor_sdk_client,
    "evicted_cursor_ts_client": evicted_cursor_ts_client,
    "foreign_cursor": foreign_cursor,
    "same_request_id": same_request_id,
    "unknown_session": unknown_session,
    "restart_then_resume": restart_then_resume,
    "round_robin_elsewhere": round_robin_elsewhere,
    "failover_round_robin": failover_round_robin,
    "failover_sticky": failover_sticky,
}
