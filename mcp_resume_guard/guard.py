"""ResumptionGuard: a resumption gate enforced in front of the MCP Python SDK; with the model's
`strict` policy it is StrictResumptionGuard, the one to deploy.

Put it around the ASGI app that serves a `StreamableHTTPSessionManager` and give the manager the
guard's event store:

    guard = StrictResumptionGuard(capacity=256)        # or inner_store=your_event_store
    app = server.streamable_http_app(event_store=guard.event_store)
    app = guard.wrap(app)

What it adds to the SDK:
- event ids that encode the session, the process incarnation (generation), the stream and a
  sequence number (store.py), and streams that are never shared between sessions, also
  when the guard wraps the deployment's own store;
- a decision on every resumption (GET + Last-Event-ID) before the SDK sees it, by a gate of the
  model (`model.policies`: strict by default; `ResumptionGuard(gate="range")` runs any named
  policy or a user's gate) on a `ServerView` built from what this process knows, as the model
  builds it, so the guard and the model cannot drift. A refusal is a JSON-RPC error body with
  the structured code in `error.data.code` (and, for a gap, the earliest cursor to resume after
  in `error.data.resume_from`); an admission does what the decision's effect says (effects.py),
  and for a session the SDK does not hold (which only a gate without a liveness check admits)
  the guard answers itself: 200 and a stream that carries nothing.

A session is live for the guard from the initialize response that names it until the SDK
answers 404 for it or a DELETE of it succeeds.
"""
from __future__ import annotations

import json
import secrets
from typing import Awaitable, Callable, Dict, List, Optional, Tuple, Union

from model.errors import GateError
from model.policies import Gate, GateFunction, decide, resolve_gate
from model.protocol import Decision, Effect, ResumeRequest
from model.view import (
    ABOVE_HWM,
    AT_FLOOR,
    BELOW_FLOOR,
    IDS_UNIQUE,
    IN_BUFFER,
    IN_RANGE,
    NO_BUFFER,
    NO_CURSOR,
    UNKNOWN,
    BufferView,
    CursorView,
    ServerView,
)

from . import ids
from .adopt import LOOPBACK, recreate_sdk_session
from .effects import plan
from .ids import SCHEMES, TaggedId
from .registry import SessionRecord, view_fields
from .store import CURRENT, Binding, GuardedEventStore, SessionBook, Slot, StreamRecord

SESSION_HEADER = b"mcp-session-id"
LAST_EVENT_ID_HEADER = b"last-event-id"
#: JSON-RPC error code of a refused resumption (the SDK uses -32600 for its own 404).
INVALID_REQUEST = -32600
#: JSON-RPC error code of a gate that failed (raised, or returned no valid Decision)
INTERNAL_ERROR = -32603
#: the view's cursor owner for an id another session issued, in a process that does not know
#: which one (session numbers start at 1)
ANOTHER_SESSION = -1


class ResumptionGuard:
    """ASGI middleware deciding resumptions with a gate; see the module docstring.

    gate          a policy name of model.policies (default "strict") or a callable
                  `(ResumeRequest, ServerView) -> Decision`
    capacity      events kept per stream of each session (the replay window it promises)
    incarnation   this process's generation, encoded in every id (default: random)
    inner_store   the deployment's own EventStore to keep events in (default: the guard keeps
                  them); it must retain at least `capacity + 1` events per stream
    registry      a session registry shared by the fleet (registry.RedisRegistry): sessions
                  live there with their generation; without one, this process's own sessions
                  are its registry (a restarted process answers the old ones 404)
    shared_buffers  replay buffers shared by the fleet (shared_buffers.SharedBuffers, with a
                  registry): a session this process does not hold is decided on, and adopted
                  with, the buffers the fleet holds for it
    ids, keying   the id scheme (ids.SCHEMES; "tagged" unless you are reproducing a weaker
                  deployment) and where a cursor is looked up: "session" (S's own streams) or
                  "event_id" (every stream of the process, like the SDK's example store)
    """

    def __init__(self, app=None, *, gate: Union[str, GateFunction, Gate] = "strict",
                 capacity: int = 256, incarnation: Optional[int] = None,
                 inner_store=None, ids: str = "tagged", keying: str = "session",
                 registry=None, shared_buffers=None) -> None:
        self.gate = resolve_gate(gate)        # ValueError naming the valid policies
        if shared_buffers is not None and registry is None:
            raise ValueError("shared_buffers need a registry shared by the same fleet")
        if ids not in SCHEMES:
            raise ValueError(f"ids must be one of {', '.join(SCHEMES)}, got {ids!r}")
        if keying not in ("session", "event_id"):
            raise ValueError(f"keying must be 'session' or 'event_id', got {keying!r}")
        if not isinstance(capacity, int) or isinstance(capacity, bool) or capacity < 1:
            raise ValueError(f"capacity must be a positive integer, got {capacity!r}")
        if incarnation is None:
            incarnation = secrets.randbits(31)
        if not isinstance(incarnation, int) or isinstance(incarnation, bool) or incarnation < 0:
            raise ValueError(f"incarnation must be a non-negative integer, got {incarnation!r}")
        self.app = app
        self.book = SessionBook(capacity, incarnation, ids, keying)
        self.shared = shared_buffers   # None: this process's buffers are its own
        self.event_store = GuardedEventStore(self.book, inner_store, shared_buffers)
        self.decisions: List[Tuple[str, Decision]] = []   # what it decided, newest last
        self.registry = registry       # None: this process's sessions are its registry
        self._manager = None
        self._rerun: Optional[Callable[[str, Binding], Awaitable[Optional[str]]]] = None

    def enable_adoption(self, manager, rerun=None) -> "ResumptionGuard":
        """Let the guard adopt a session the shared registry holds and this process does not
        (as a new generation), when the gate admits a request for it: `manager` is the SDK's
        StreamableHTTPSessionManager serving the app; `rerun(session_id, binding)` (optional)
        restarts the session's in-flight work in this process and returns the id of the stream
        it runs on (the resumed GET is attached to it)."""
        self._manager, self._rerun = manager, rerun
        return self

    @property
    def incarnation(self) -> int:
        return self.book.incarnation

    @property
    def sessions(self) -> Dict[str, Binding]:
        """Live sessions by Mcp-Session-Id."""
        return self.book.sessions

    def wrap(self, app) -> "ResumptionGuard":
        """This guard in front of `app` (an ASGI app serving the session manager)."""
        self.app = app
        return self

    def decide(self, session_id: str, last_event_id: Optional[str],
               record: Optional[SessionRecord] = None, buffers: Optional[Binding] = None,
               label: Optional[str] = None) -> Tuple[Decision, ServerView]:
        """The gate's decision for a GET on `session_id` with `last_event_id`, and the view it
        decided on; `record`: the shared registry's; `buffers`: the fleet's shared buffers of a
        session this process does not hold; `label`: the id key the registry keeps for it
        (GateError if the gate raises or returns no valid Decision)."""
        binding = self.book.sessions.get(session_id)
        number = binding.number if binding is not None else 0
        view = self.view(binding, number, last_event_id, record, buffers, label)
        return decide(self.gate, ResumeRequest(number, last_event_id), view), view

    def view(self, binding: Optional[Binding], number: int, last_event_id: Optional[str],
             record: Optional[SessionRecord] = None, buffers: Optional[Binding] = None,
             label: Optional[str] = None) -> ServerView:
        """What this process knows, as model.observe.build_view builds it for the guard's id
        scheme and keying: S's buffer is its own stream (Binding.own_stream); E is found by the
        deployment's lookup (SessionBook.lookup); its position is by the scheme's order; owner
        and generation are only what the id proves (a tagged id's parts, or a unique id found
        in a stream)."""
        book, wire = self.book, last_event_id
        tagged = TaggedId.parse(wire) if wire is not None and book.scheme == "tagged" else None
        owner: Optional[int] = None
        generation: Optional[int] = None
        if tagged is not None:
            owner_binding = book.keys.get(tagged.key)
            owner = owner_binding.number if owner_binding is not None else None
            if owner is None and label is not None:      # S is registered with its id key
                owner = number if tagged.key == label else ANOTHER_SESSION
            if owner is None and binding is not None and tagged.key != binding.key:
                # Keys are random and unique: an id under another key was not issued on S,
                # even if another process issued it and this one cannot say to whom.
                owner = ANOTHER_SESSION
            generation = tagged.incarnation
        mine = buffers if buffers is not None else binding     # whose streams are S's buffer
        own = mine.own_stream(wire) if mine is not None else None
        buffer = None if own is None else BufferView(
            tuple(e.event_id for e in own.events), own.floor.event_id if own.floor else None)
        hit = book.lookup(mine, wire)
        entry = hit[2] if hit is not None else (
            own.floor if own is not None and own.floor is not None
            and own.floor.event_id == wire else None)
        issuer = hit[0] if hit is not None else mine
        guarantee = ids.guarantee(book.scheme, self.shared is not None)
        if owner is None and entry is not None and guarantee == IDS_UNIQUE:
            owner, generation = number if issuer is mine else issuer.number, entry.generation
        known, held, recreates, serves_at = view_fields(
            record, binding.generation if binding is not None else None,
            self.registry is not None)
        cursor = CursorView(wire, owner, generation, hit is not None,
                            _position(book.scheme, own, wire),
                            hit is not None and hit[0] is not mine)
        return ServerView(instance=0, incarnation=self.incarnation, session=number,
                          registry_has_session=known, held_locally=held, generation=serves_at,
                          recreates=recreates, buffer=buffer, cursor=cursor,
                          ids=guarantee)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or ())
        raw_session = headers.get(SESSION_HEADER)
        session_id = raw_session.decode("latin-1") if raw_session is not None else None
        method = scope.get("method", "")
        decision: Optional[Decision] = None
        buffers: Optional[Binding] = None    # S's streams read from the fleet's buffers
        raw_cursor = headers.get(LAST_EVENT_ID_HEADER)
        if session_id is None:
            binding = self.book.new_binding()
        else:
            binding = self.book.sessions.get(session_id)
            record = await self.registry.get(session_id) if self.registry is not None else None
            label = None
            resumption = method == "GET" and raw_cursor is not None
            # a session another process has adopted since is held here at a stale generation
            stale = binding is not None and record is not None \
                and binding.generation != record.generation
            if (binding is None or stale) and record is not None and resumption:
                label = await self.registry.label_of(session_id)
                if self.shared is not None:
                    buffers = await self.shared.load(session_id, self.book.new_binding())
            if resumption:
                try:
                    decision, view = self.decide(session_id, raw_cursor.decode("latin-1"),
                                                 record, buffers, label)
                except GateError as exc:     # fail closed, and say why
                    await _answer_json(send, 500, INTERNAL_ERROR, "resumption gate failed",
                                       {"code": "gate_error", "reason": str(exc)})
                    return
                self.decisions.append((session_id, decision))
                if not decision.admitted:
                    await _refuse(decision, send)
                    return
                if view.recreates and record is not None:
                    binding = await self._adopt(session_id, record,
                                                headers.get(b"host", LOOPBACK), buffers, label)
                    if binding is None:
                        await _answer_json(send, 503, INTERNAL_ERROR, "cannot adopt session",
                                           {"code": "adoption_failed", "reason":
                                            "adoption is not enabled here, or another process "
                                            "adopted the session first"})
                        return
                if binding is None:          # admitted, but the SDK does not hold S
                    await _silent_stream(decision, receive, send)
                    return
            elif binding is not None and self.registry is not None:
                await self.registry.touch(session_id)
        todo = None if decision is None else plan(
            decision.effect, self.book, binding,
            raw_cursor.decode("latin-1") if raw_cursor is not None else None)
        token = CURRENT.set(Slot(binding, todo))
        try:
            await self.app(scope, receive, self._watch(send, binding, session_id, method))
        finally:
            CURRENT.reset(token)
            for unbound in (binding, buffers):
                if unbound is not None:
                    self.book.drop_unbound(unbound)   # no session came of it

    async def _adopt(self, session_id: str, record: SessionRecord, host: bytes,
                     buffers: Optional[Binding] = None,
                     label: Optional[str] = None) -> Optional[Binding]:
        """Serve `session_id` here as the registry's next generation (None: adoption is not
        enabled, or another process adopted it first): the SDK gets the session, and its
        in-flight work restarts here (`rerun`)."""
        if self._manager is None or self.registry is None:
            return None
        adopted = await self.registry.adopt(session_id, record.generation)
        if adopted is None:
            return None
        stale = self.book.sessions.get(session_id)
        if stale is not None:
            self.book.forget(session_id)
        binding = buffers if buffers is not None else self.book.new_binding()
        binding.generation, binding.counter = adopted.generation, 0
        if label is not None:            # S keeps its id key: its ids stay S's everywhere
            self.book.keys.pop(binding.key, None)
            binding.key = label
            self.book.keys[label] = binding
        self.book.bind(binding, session_id)
        token = CURRENT.set(Slot(binding))     # the recreated session's tasks inherit it
        try:
            await recreate_sdk_session(self._manager, session_id, host)
            attach = await self._rerun(session_id, binding) if self._rerun else None
        finally:
            CURRENT.reset(token)
        if attach is not None:
            binding.latest = binding.stream(attach, self.book.capacity)
        return binding

    def _watch(self, send, binding: Optional[Binding], session_id: Optional[str], method: str):
        """`send`, learning from response starts: a new session's id (registered, at
        generation 1, in the shared registry), or that one is gone (a DELETE also from the
        registry; the SDK's 404 only here: the registry may still hold it)."""
        async def watching_send(message) -> None:
            if message["type"] == "http.response.start":
                status = message["status"]
                if session_id is None and binding is not None:
                    issued = dict(message.get("headers") or ()).get(SESSION_HEADER)
                    if issued is not None and 200 <= status < 300:
                        self.book.bind(binding, issued.decode("latin-1"))
                        if self.registry is not None:
                            created = await self.registry.create(issued.decode("latin-1"))
                            binding.generation = created.generation
                            await self.registry.set_label(created.session_id, binding.key)
                elif session_id is not None and (status == 404 or
                                                 (method == "DELETE" and status < 300)):
                    self.book.forget(session_id)
                    if method == "DELETE" and self.registry is not None:
                        await self.registry.forget(session_id)
            await send(message)
        return watching_send


class StrictResumptionGuard(ResumptionGuard):
    """The guard with the model's `strict` policy: liveness, provenance, generation,
    reachability, in that order; it never guesses."""

    def __init__(self, app=None, *, capacity: int = 256, incarnation: Optional[int] = None,
                 inner_store=None, registry=None, shared_buffers=None) -> None:
        super().__init__(app, gate="strict", capacity=capacity, incarnation=incarnation,
                         inner_store=inner_store, registry=registry,
                         shared_buffers=shared_buffers)


def _position(scheme: str, own: Optional[StreamRecord], wire: Optional[str]) -> str:
    """Where cursor `wire` lies relative to S's buffer `own` (model.observe.position: by the
    scheme's order, ids.order)."""
    if wire is None:
        return NO_CURSOR
    if own is None:
        return NO_BUFFER
    if any(e.event_id == wire for e in own.events):
        return IN_BUFFER
    if own.floor is not None and own.floor.event_id == wire:
        return AT_FLOOR
    key = ids.order(scheme, wire)
    if key is None:
        return UNKNOWN
    if own.floor is not None and own.floor.order is not None and key < own.floor.order:
        return BELOW_FLOOR
    newest = own.events[-1] if own.events else own.floor
    if newest is None:
        return ABOVE_HWM
    if newest.order is not None and key > newest.order:
        return ABOVE_HWM
    return IN_RANGE


async def _answer_json(send, status: int, code: int, message: str, data: dict) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
        "code": code, "message": message, "data": data}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _refuse(decision: Decision, send) -> None:
    data = {"code": decision.code.value, "reason": decision.reason}
    if decision.resume_from is not None:
        data["resume_from"] = str(decision.resume_from)
    await _answer_json(send, decision.status, INVALID_REQUEST,
                       f"resumption refused: {decision.code.value}", data)


async def _silent_stream(decision: Decision, receive, send) -> None:
    """200 and an SSE stream for a session this process does not hold: nothing of S can ever
    arrive on it. It ends at once for empty_close; otherwise it stays open until the client
    goes away (a stall, as the model says)."""
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/event-stream"),
                            (b"cache-control", b"no-cache")]})
    if decision.effect is not Effect.EMPTY_CLOSE:
        await send({"type": "http.response.body", "body": b": admitted, nothing to send\n\n",
                    "more_body": True})
        while (await receive())["type"] != "http.disconnect":
            pass
    await send({"type": "http.response.body", "body": b"", "more_body": False})
