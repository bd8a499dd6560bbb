"""The conformance cases: for each, the model's scenario in the harness's topology and what the
harness does to real servers. The real side lives in `drills.py`; this module needs only the
model, so the cases and their predictions can be listed without the `conformance` extra.

Every case sends one resumption that matters (the "case's request"); the model's scenario has
exactly one scripted `Reconnect` standing for it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

from model import Deliver, Disconnect, Drain, Emit, Evict, ForeignCursor, Start, Stop, SystemConfig

from ..script import Scenario, Settle, route

#: The harness's deployment as the model sees it (DEPLOYMENTS in predict.py adds the id scheme).
_ONE = SystemConfig(instances=1, clients=1, store="local", buffer="local", lb="round_robin",
                    messages_per_session=3, messages_per_call=3, buffer_capacity=64)
_TWO_RR = _ONE.replace(instances=2)
_TWO_STICKY = _ONE.replace(instances=2, lb="sticky")


#: the drivers that run a real SDK client, and its client profile: None for the server's own
#: SDK's client (predict.SDK_CLIENTS), else that profile's client whatever the server
CLIENT_DRIVERS: Dict[str, Optional[str]] = {"sdk_client": None, "ts_client": "sdk-typescript"}


@dataclass(frozen=True)
class Case:
    name: str
    title: str
    driver: str        # "raw": HTTP under the harness's control; a CLIENT_DRIVERS key: an SDK's
    #                    own client
    topology: str      # "direct", "nginx round_robin" or "nginx sticky"
    does: str          # what the harness does, in one sentence
    scenario: Scenario
    note: str = ""     # a documented difference between the model and the harness, if any
    #: server -> a defect of that real server that can make its row differ from the model,
    #: with the evidence (the row then says "explained" instead of failing the run)
    defects: Dict[str, str] = field(default_factory=dict)


def _scenario(name: str, config: SystemConfig, steps: List) -> Scenario:
    return Scenario(name=name, title=name, source="conformance", config=config,
                    steps=tuple(steps), explanation="")


def _live(n: int, client: int = 0, token: int = 1) -> List:
    return [s for _ in range(n) for s in (Emit(token), Deliver(client))]


_OWN = [route("init", 0)] + _live(1) + [Disconnect(0), Emit(1), Emit(1), route("reconnect", 0),
                                        Settle()]
_GAP = [route("init", 0)] + _live(1) + [Disconnect(0)] + [Emit(1)] * 4 + [
    route("reconnect", 0), Settle()]
_SMALL_BUFFER = _ONE.replace(buffer_capacity=2, messages_per_session=5, messages_per_call=5)
_FOREIGN = ([route("init", 0), route("init", 1)] + _live(1, 0, 1) + _live(1, 1, 2)
            + [Disconnect(1), Disconnect(0), Emit(1), ForeignCursor(1, 0), route("reconnect", 1),
               Settle()])
_SAME_ID = ([route("init", 0), route("init", 1)] + _live(1, 1, 2)
            + [Disconnect(1)] + _live(2, 0, 1) + [Emit(2), Emit(2), route("reconnect", 1),
                                                  Settle()])
_UNKNOWN = [route("init", 0)] + _live(1) + [Disconnect(0), Evict(1), route("reconnect", 0),
                                            Settle()]
_RESTART = [route("init", 0)] + _live(1) + [Disconnect(0), Stop(0), Start(0),
                                            route("reconnect", 0), Settle()]
_FAILOVER = [route("init", 0), Disconnect(0), Drain(0), Stop(0), route("reconnect", 0), Settle()]
_ELSEWHERE = [route("init", 0), Disconnect(0), route("reconnect", 0), Settle()]
_SDK_FAILOVER = [route("init", 0)] + _live(1) + [Disconnect(0), Drain(0), Stop(0),
                                                 route("reconnect", 0), Settle()]

#: The TypeScript SDK's example store (examples/shared/inMemoryEventStore.js) names events
#: `<stream id>_<milliseconds>_<8 random characters>` and replays a stream by sorting the ids as
#: strings: events stored in the same millisecond come back in random order, and whatever sorts
#: before the cursor is skipped. A call that sends several notifications at once loses or
#: repeats some of them on resumption.
TS_SAME_MILLISECOND = (
    "TypeScript SDK example-store defect: ids `<stream>_<ms>_<random>` are replayed in string "
    "order, so events stored in the same millisecond replay in random order (some skipped, "
    "some repeated); seen as e.g. A:1, A:3, A:6, A:4, A:5, A:done. The model replays in "
    "order; the cases whose calls send their notifications in one burst show it.")

CASES: Dict[str, Case] = {c.name: c for c in (
    Case("own_cursor", "Resume with the session's own cursor", "raw", "direct",
         "opens a tool call whose stream the server closes after two notifications, waits until "
         "the call's result is stored, then resumes with the last id received",
         _scenario("own_cursor", _ONE, _OWN), defects={"ts": TS_SAME_MILLISECOND}),
    Case("own_cursor_sdk_client", "The SDK client resumes with its own cursor", "sdk_client",
         "direct", "the SDK client calls the tool; the server closes the stream (SEP-1699 "
         "polling) and the client resumes on its own",
         _scenario("own_cursor_sdk_client", _ONE, _OWN), defects={"ts": TS_SAME_MILLISECOND}),
    Case("evicted_cursor", "Resume with a cursor the bounded store has evicted (a gap)", "raw",
         "direct", "as own_cursor, but the store keeps 3 events per stream and the call emits 8 "
         "more after the cursor",
         _scenario("evicted_cursor", _SMALL_BUFFER, _GAP)),
    Case("evicted_cursor_sdk_client", "The SDK client's reaction to a gap", "sdk_client",
         "direct", "the SDK client calls the tool on a server keeping 3 events per stream; the "
         "stream closes after one notification and 8 more are emitted before it resumes",
         _scenario("evicted_cursor_sdk_client", _SMALL_BUFFER, _GAP)),
    Case("evicted_cursor_ts_client", "The TypeScript SDK client's reaction to a gap, on every "
         "server (the guard's 409 replay_gap included)", "ts_client", "direct",
         "as evicted_cursor_sdk_client, always with the TypeScript SDK's client",
         _scenario("evicted_cursor_ts_client", _SMALL_BUFFER, _GAP)),
    Case("foreign_cursor", "Another session's cursor presented on S", "raw", "direct",
         "two sessions on one server; B resumes on its own session id with a cursor issued on "
         "A's tool-call stream",
         _scenario("foreign_cursor", _ONE.replace(clients=2), _FOREIGN)),
    Case("same_request_id", "Two honest sessions whose calls carry the same request id", "raw",
         "direct", "two sessions each call the tool with JSON-RPC id 1 (as every SDK client "
         "numbers its requests); B's call pauses after its stream closes while A's runs; B "
         "resumes with its own cursor",
         _scenario("same_request_id", _ONE.replace(clients=2), _SAME_ID),
         defects={"ts": TS_SAME_MILLISECOND}),
    Case("unknown_session", "A session id the server never issued", "raw", "direct",
         "resumes with a fresh random Mcp-Session-Id and a cursor of a real session",
         _scenario("unknown_session", _ONE, _UNKNOWN),
         note=("The model has no way to invent a token, so it evicts the session first: the "
               "deciding process's view (no such session) is the same.")),
    Case("restart_then_resume", "The instance restarts, then the SDK client resumes",
         "sdk_client", "direct",
         "the SDK client's first resumption is held until the server process has been stopped "
         "and a new incarnation started on the same port",
         _scenario("restart_then_resume", _ONE, _RESTART)),
    Case("round_robin_elsewhere", "Round-robin sends the resumption to the other instance",
         "raw", "nginx round_robin",
         "initialize through nginx, then resume the initialize stream's cursor through nginx "
         "with both instances up",
         _scenario("round_robin_elsewhere", _TWO_RR, _ELSEWHERE)),
    Case("failover_round_robin", "Failover through round-robin after the holder stops", "raw",
         "nginx round_robin",
         "initialize through nginx, stop the instance that answered, resume the initialize "
         "stream's cursor through nginx",
         _scenario("failover_round_robin", _TWO_RR, _FAILOVER)),
    Case("failover_sticky", "Failover through sticky routing; the SDK client's reaction to 404",
         "sdk_client", "nginx sticky",
         "the SDK client works through nginx hashing Mcp-Session-Id; its first resumption is "
         "held until the instance holding the session has been stopped",
         _scenario("failover_sticky", _TWO_STICKY, _SDK_FAILOVER),
         note=("nginx's hash cannot see the session id on the initialize request (it has none "
               "yet), so a session sticks only when its id hashes to the instance that created "
               "it; the harness draws sessions until one does. The model's sticky LB learns the "
               "affinity from the initialize response.")),
)}
