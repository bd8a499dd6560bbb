"""One action sequence run in lockstep on the model and on real servers.

The model's scenario engine (`model.apply`) takes each action; the harness does the same thing to
real MCP servers and compares, after every step, what the two can both observe:

- a resumption's answer: status and structured code;
- every open stream: the events it carried (a tool message `t<token>:<n>` is the model's
  message n-1 of session `token`), whether the server closed it when the model says it does;
- each client's cursor: the model's cursor id maps to the real id the client holds (a priming
  event the model does not send shows up as a cursor the model cannot name);
- at the end, what each client applied.

The model names the instance of every request. The harness sends it there: straight to the
instance, or (with a `router`, the fleet drills) through a real nginx whose round-robin it lines
up for each request and whose answer must come from that instance (`steering`). The model is
given the deployment the real server is (`predict.DEPLOYMENTS`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from model import SystemConfig, apply, enabled_actions, initial_state, resolve_gate
from model.actions import (
    ClientRestart,
    Deliver,
    Disconnect,
    Drain,
    Emit,
    ForeignCursor,
    HalfOpen,
    IdleTimeout,
    Init,
    Persist,
    Reconnect,
    Start,
    Stop,
)
from model.history import Applied, Decided, Initialized, Primed
from model.state import holder

from ...clients import with_client
from .. import loopback
from ..outcome import GAP_NOTICE, code_of_refusal
from ..predict import DEPLOYMENTS
from ..probe import STEP_PREFIX
from ..processes import ServerInstance
from ..steering import SteeredNginx
from ..wire import SSE, WireClient
from .disagreement import Disagreement
from .labels import item_label, label_of, name
from .streams import QUIET_WAIT, OpenStream, StreamPool, headers

#: the model actions a sequence draws from (the others have no real counterpart here: the
#: harness cannot evict a session or compact a store; Drain only changes where it routes), in
#: the order a sequence is offered them (Hypothesis favours, and shrinks towards, the first:
#: progress first)
VOCABULARY = (Deliver, Emit, Reconnect, Init, Disconnect, HalfOpen, IdleTimeout, ClientRestart,
              Persist, ForeignCursor, Drain, Stop, Start)


def deployment(server: str, instances: int, clients: int, messages: int,
               capacity: int) -> Tuple[SystemConfig, str]:
    """The model's deployment for a differential run against `server`, and its policy."""
    policy, overrides = DEPLOYMENTS[server]
    config = SystemConfig(instances=instances, clients=clients, store="local", buffer="local",
                          lb="random", messages_per_session=messages, messages_per_call=messages,
                          buffer_capacity=capacity, **overrides)
    return with_client(config, "spec"), policy


@dataclass
class RealClient:
    """What the harness's client holds: its session, cursor, persisted copy and stream."""
    session_id: Optional[str] = None
    token: Optional[int] = None
    cursor: Optional[str] = None
    persisted: Tuple[Optional[str], Optional[int], Optional[str]] = (None, None, None)
    stream: Optional[OpenStream] = None
    read: int = 0                       # events of `stream` the client has consumed
    applied: List[Tuple[int, int]] = field(default_factory=list)   # (token, msg) in order


class Lockstep:
    """A model state and the real fleet it mirrors, stepped together."""

    def __init__(self, fleet: List[ServerInstance], pool: StreamPool, server: str,
                 config: SystemConfig, policy: str, sequence: int,
                 router: Optional[SteeredNginx] = None) -> None:
        self.fleet, self.pool, self.server = fleet, pool, server
        self.router = router                # None: each request straight to its instance
        self.config, self.gate = config, resolve_gate(policy)
        self.state = initial_state(config)
        self.sequence = sequence            # request id of every tool call (a fresh stream)
        self.clients = [RealClient() for _ in range(config.clients)]
        self.wires: Dict[object, str] = {}  # model event (_event_key) -> real event id
        self.http = loopback.client(timeout=5.0)
        self.log: List[str] = []
        self.abandoned: List[OpenStream] = []     # half-open connections, dropped at the end
        self.decisions: List[str] = []            # every resumption: "status code effect"

    # -- the step ------------------------------------------------------------------------
    def candidates(self) -> List[object]:
        """The enabled model actions the harness can do to real servers."""
        return [a for a in enabled_actions(self.state, self.config) if type(a) in VOCABULARY]

    def step(self, action) -> None:
        """Apply `action` to both sides; raise Disagreement at the first difference."""
        self.log.append(repr(action))      # as findings.describe writes a sequence line
        before = self.state
        self.state, events = apply(self.state, action, self.config, self.gate)
        kind = type(action)
        if kind is Init:
            self._init(action, events)
        elif kind is Emit:
            self._emit(before, action)
        elif kind is Deliver:
            self._deliver(action.client, events)
        elif kind is Persist:
            real = self.clients[action.client]
            real.persisted = (real.session_id, real.token, real.cursor)
        elif kind in (Disconnect, IdleTimeout, HalfOpen):
            self._lose_stream(action.client, half_open=kind is HalfOpen)
        elif kind is ClientRestart:
            real = self.clients[action.client]
            self._lose_stream(action.client, half_open=False)
            real.session_id, real.token, real.cursor = real.persisted
        elif kind is ForeignCursor:
            self.clients[action.client].cursor = self.clients[action.donor].cursor
        elif kind is Reconnect:
            self._reconnect(action, events)
        elif kind is Stop:
            self.fleet[action.instance].stop()
        elif kind is Start:
            self.fleet[action.instance].start()
        self._sync()

    def finish(self) -> None:
        """After the last step: no stream carries more than the model says, and every client
        applied the same messages of its own work as the model's client (each delivery was
        compared in order as it happened). The open streams are watched for one quiet window
        together: each is read in the background, so every one of them gets the whole window."""
        quiet_until = time.monotonic() + QUIET_WAIT
        for c, real in enumerate(self.clients):
            if real.stream is not None and not real.stream.abandoned:
                real.stream.wait_for(len(real.stream.events) + 1,
                                     max(quiet_until - time.monotonic(), 0.0))
                self._check_stream(c)
            own = self._tokens_of(c)
            mine = sorted({msg for token, msg in real.applied if token in own})
            want = sorted(msg for msg, _ in self.state.clients[c].applied)
            if mine != want:
                self._differ("applied", f"c{c} applied messages {mine} of its work, the "
                             f"model's client {want}")

    def close(self) -> None:
        """Drop every connection the sequence left open; close the probe client."""
        for stream in self.abandoned + [r.stream for r in self.clients if r.stream]:
            self.pool.drop(stream)
        self.http.close()

    # -- each action on the wire -----------------------------------------------------------
    def _base(self, instance: int) -> str:
        """Where a client request for `instance` goes (nginx lined up for it, with a router)."""
        return self.fleet[instance].url if self.router is None else self.router.url(instance)

    def _url(self, instance: int) -> str:
        return self._base(instance) + "/mcp"

    def _routed(self, answer_headers: Dict[str, str], instance: int, what: str) -> None:
        """With nginx in the path: the answer came from `instance`."""
        wrong = None if self.router is None else \
            self.router.wrong_instance(answer_headers, instance)
        if wrong is not None:
            self._differ("routing", f"{what}: {wrong}")

    def _init(self, action: Init, events) -> None:
        init = next(e for e in events if type(e) is Initialized)
        real = self.clients[action.client]
        self._lose_stream(action.client, half_open=False)
        wire = WireClient(self.fleet[action.instance].url,
                          route=None if self.router is None else
                          (lambda: self._base(action.instance)))
        try:
            wire.initialize()
        finally:
            wire.close()
        for answer in wire.answered:
            self._routed(answer, action.instance, f"c{action.client}'s initialize")
        real.session_id, real.token, real.cursor = wire.session_id, init.token, None
        real.stream = self.pool.open("POST", self._url(action.instance), headers(wire.session_id),
                                     json={"jsonrpc": "2.0", "id": self.sequence,
                                           "method": "tools/call", "params": {
                                               "name": "stepped",
                                               "arguments": self._work(init)}})
        self._routed(real.stream.headers, action.instance, f"c{action.client}'s tool call")
        real.read = 0
        if real.stream.status != 200:
            self._differ("answer", f"the tool call answered {real.stream.status}")
        if init.priming is not None:      # the model's client holds the priming id at once
            real.stream.wait_for(1)
            first = real.stream.events[0] if real.stream.events else None
            if first is None or first.data:
                self._differ("stream", "the tool call's stream did not start with a priming "
                             f"event: {first}")
            real.cursor, real.read = first.id, 1
            self._map(self._cursor_key(action.client), real.cursor, "the priming event")
        real.persisted = (real.session_id, real.token, real.cursor)   # as the model's client

    def _work(self, init: Initialized) -> dict:
        """The `stepped` call that is the new session's work: its messages from the model's
        work_start on (a re-initialized client's work goes on where its unfinished call
        began)."""
        work = {"tag": f"s{self.sequence}t{init.token}",
                "count": self.config.messages_per_session - 1}
        return {**work, "first": init.work_start} if init.work_start else work

    def _emit(self, before, action: Emit) -> None:
        instance = holder(before, self.config, action.token)
        assert instance is not None
        tag = f"s{self.sequence}t{action.token}"
        answer = self.http.get(f"{self.fleet[instance].url}{STEP_PREFIX}{tag}")
        if answer.status_code != 200:
            self._differ("harness", f"the server never stored {tag}'s next message "
                         f"({answer.status_code})")

    def _deliver(self, c: int, events) -> None:
        """The client consumes its stream's next event: a data event the model's client
        applies, or a priming event (id only) it takes as its cursor."""
        event = next(e for e in events if type(e) in (Applied, Primed))
        real = self.clients[c]
        stream = real.stream
        want = "id" if type(event) is Primed else (event.token, event.msg)
        if stream is None:
            self._differ("stream", f"c{c} has no real stream to receive {name(want)} on")
        if not stream.wait_for(real.read + 1):
            self._differ("stream", f"c{c}'s stream never carried {name(want)} (closed: "
                         f"{stream.closed})")
        got_event = stream.events[real.read]
        real.read += 1
        got = self._label(got_event)
        if got != want:
            self._differ("stream", f"c{c} received {name(got)}, the model delivers "
                         f"{name(want)}")
        real.cursor = got_event.id
        if type(event) is Applied:
            real.applied.append(got)
        self._map(self._cursor_key(c), got_event.id, name(want))

    def _lose_stream(self, c: int, half_open: bool) -> None:
        real = self.clients[c]
        if real.stream is not None:
            if half_open:
                real.stream.abandoned = True
                self.abandoned.append(real.stream)
            else:
                self.pool.drop(real.stream)
        real.stream, real.read = None, 0

    def _reconnect(self, action: Reconnect, events) -> None:
        decided = next(e for e in events if type(e) is Decided)
        self.decisions.append(f"{decided.status} {decided.code} {decided.effect}")
        real = self.clients[action.client]
        self._lose_stream(action.client, half_open=False)
        stream = self.pool.open("GET", self._url(action.instance),
                                headers(real.session_id, real.cursor, get=True))
        self._routed(stream.headers, action.instance, f"c{action.client}'s resumption")
        code = "ok" if stream.status == 200 else code_of_refusal(stream.status, stream.body)
        if (stream.status, code) != (decided.status, decided.code):
            self._differ("answer", f"the resumption was answered {stream.status} {code}, the model "
                         f"answers {decided.status} {decided.code} ({decided.effect})")
        if stream.status != 200:
            self._react(action.client, decided, stream.body)
            return
        real.stream, real.read = stream, 0
        if decided.effect == "gap":        # the model's client takes the floor it names at once
            self._take_gap_notice(action.client, decided)
        model = self.state.clients[action.client]
        if model.phase != "open":         # the model's server closes at once (empty_close)
            if not stream.wait_closed():
                self._differ("closed", "the server kept the resumed stream open; the model "
                             f"closes it at once ({decided.effect})")
            if stream.events:
                self._differ("stream", "the closed stream carried "
                             f"{[name(self._label(e)) for e in stream.events]}")
            real.stream = None
        elif not model.inflight:
            stream.wait_closed(QUIET_WAIT)
            if stream.closed and not stream.events:
                self._differ("closed", "the server closed the resumed stream at once; the "
                             f"model keeps it open ({decided.effect})")

    def _take_gap_notice(self, c: int, decided) -> None:
        """A gap admission starts with the guard's gap notice: an event without an id (the
        client keeps its cursor, as the model's client does) naming the floor in its params."""
        real = self.clients[c]
        stream = real.stream
        first = stream.events[0] if stream.wait_for(1) else None
        if first is None or SSE(first.id, first.data).method != GAP_NOTICE or first.id:
            self._differ("stream", f"the gap admission's stream began with {first}, not a gap "
                         "notice without an id")
        real.read = 1

    def _react(self, c: int, decided, body: Optional[dict]) -> None:
        """The client's reaction to a refusal, as the model's client reacts: forget the session
        (re-initialize), or resume after the cursor a replay_gap names."""
        real, model = self.clients[c], self.state.clients[c]
        if model.token is None:
            real.session_id, real.token, real.cursor = None, None, None
        elif model.cursor is not None and model.cursor.wire == decided.resume_from:
            data = ((body or {}).get("error") or {}).get("data") or {}
            real.cursor = data.get("resume_from") if isinstance(data, dict) else None
            self._map(self._cursor_key(c), real.cursor, "the cursor a replay_gap names")

    # -- comparisons -----------------------------------------------------------------------
    def _sync(self) -> None:
        for c in range(len(self.clients)):
            self._check_stream(c)
            self._check_cursor(c)

    def _check_stream(self, c: int) -> None:
        """The client's real stream has carried, beyond what it consumed, exactly the events
        the model has in flight to it (their arrival waited for, extras caught as they come)."""
        real, model = self.clients[c], self.state.clients[c]
        if real.stream is None:
            return
        if model.phase != "open":
            # the model's stream ended without the client ending it (the instance stopped, or
            # the server ended a replay-only stream): the real server must have ended it too
            stream, real.stream, real.read = real.stream, None, 0
            if not stream.wait_closed():
                self._differ("closed", f"c{c}'s stream ended in the model; the real server "
                             "kept it open")
            return
        want = [item_label(item) for item in model.inflight]
        stream = real.stream
        stream.wait_until(lambda: len(stream.events) - real.read >= len(want))
        got = [self._label(e) for e in stream.events[real.read:]]
        if got != want:
            self._differ("stream", f"c{c}'s stream carries {[name(g) for g in got]}, the "
                         f"model has {[name(w) for w in want]} in flight")

    def _check_cursor(self, c: int) -> None:
        model = self.state.clients[c].cursor
        real = self.clients[c]
        key = self._cursor_key(c)
        if model is not None and key not in self.wires:
            self._differ("cursor", f"c{c}'s model cursor {model.wire!r} has no real id")
        want = self.wires[key] if model is not None else None
        if real.cursor != want:
            self._differ("cursor", f"c{c} holds real cursor {real.cursor!r}, the model's "
                         f"client {model.wire if model else None!r} (= real {want!r})")

    def _cursor_key(self, c: int) -> object:
        """The model event client `c`'s cursor names: its id, with the session and generation
        that issued it where the model knows them (a counter id repeats across sessions and
        generations; the real server's counter also counts events no client sees, such as the
        initialize response, so only the event, not the number, can be matched)."""
        cursor = self.state.clients[c].cursor
        if cursor is None:
            return None
        truth = cursor.truth
        return (cursor.wire, truth.token, truth.generation) if truth is not None \
            else (cursor.wire,)

    def _label(self, event) -> object:
        """A real event as the model names it: (token, msg) of a tool message, "id" for an
        event with an id and no data (priming), its raw data otherwise."""
        if not event.data:
            return "id"
        return label_of(event.data, self.config.messages_per_session) or event.data[:60]

    def _map(self, model_wire, real_id: Optional[str], what: str) -> None:
        if real_id is None:
            self._differ("cursor", f"the model issued id {model_wire!r} for {what}; the real "
                         "server sent none")
        known = self.wires.setdefault(model_wire, real_id)
        if known != real_id:
            self._differ("cursor", f"model id {model_wire!r} is real {known!r} and {real_id!r}")

    def _tokens_of(self, c: int) -> set:
        ident = self.state.clients[c].ident
        return {token for token, owner in self.state.owners if owner == ident}

    def _differ(self, kind: str, what: str) -> None:
        raise Disagreement.of(kind)(f"at step {len(self.log)}: {what}", self.log)
