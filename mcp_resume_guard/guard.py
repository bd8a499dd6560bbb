"""StrictResumptionGuard: the `strict` policy enforced in front of the MCP Python SDK.

Put it around the ASGI app that serves a `StreamableHTTPSessionManager` and give the manager the
guard's event store:

    guard = StrictResumptionGuard(capacity=256)        # or inner_store=your_event_store
    app = server.streamable_http_app(event_store=guard.event_store)
    app = guard.wrap(app)

What it adds to the SDK:
- event ids that encode the session, the process incarnation (generation), the stream and a
  sequence number (store.py), and streams that are never shared between sessions, also
  when the guard wraps the deployment's own store;
- a check of every resumption (GET + Last-Event-ID) before the SDK sees it: liveness, provenance,
  generation, reachability, in that order. The decision is `model.policies.strict` itself, run on
  a `ServerView` built from what this process knows, so the guard and the model cannot drift.
  A refusal is a JSON-RPC error body with the structured code in `error.data.code` (and, for a
  gap, the earliest cursor to resume after in `error.data.resume_from`).

A session is live for the guard from the initialize response that names it until the SDK
answers 404 for it or a DELETE of it succeeds.
"""
from __future__ import annotations

import json
import secrets
from typing import Dict, List, Optional, Tuple

from model.policies import strict
from model.protocol import Decision, ResumeRequest
from model.view import (
    ABOVE_HWM,
    AT_FLOOR,
    BELOW_FLOOR,
    IN_BUFFER,
    NO_CURSOR,
    UNKNOWN,
    BufferView,
    CursorView,
    ServerView,
)

from .store import CURRENT, Binding, GuardedEventStore, SessionBook, Slot, StreamRecord, TaggedId

SESSION_HEADER = b"mcp-session-id"
LAST_EVENT_ID_HEADER = b"last-event-id"
#: JSON-RPC error code of a refused resumption (the SDK uses -32600 for its own 404).
INVALID_REQUEST = -32600
#: the view's cursor owner for an id another session issued, in a process that does not know
#: which one (session numbers start at 1)
ANOTHER_SESSION = -1


class StrictResumptionGuard:
    """ASGI middleware enforcing `strict` on resumptions; see the module docstring.

    capacity      events kept per stream of each session (the replay window it promises)
    incarnation   this process's generation, encoded in every id (default: random)
    inner_store   the deployment's own EventStore to keep events in (default: the guard keeps
                  them); it must retain at least `capacity + 1` events per stream
    """

    def __init__(self, app=None, *, capacity: int = 256, incarnation: Optional[int] = None,
                 inner_store=None) -> None:
        if not isinstance(capacity, int) or isinstance(capacity, bool) or capacity < 1:
            raise ValueError(f"capacity must be a positive integer, got {capacity!r}")
        if incarnation is None:
            incarnation = secrets.randbits(31)
        if not isinstance(incarnation, int) or isinstance(incarnation, bool) or incarnation < 0:
            raise ValueError(f"incarnation must be a non-negative integer, got {incarnation!r}")
        self.app = app
        self.book = SessionBook(capacity, incarnation)
        self.event_store = GuardedEventStore(self.book, inner_store)
        self.decisions: List[Tuple[str, Decision]] = []   # what it decided, newest last

    @property
    def incarnation(self) -> int:
        return self.book.incarnation

    @property
    def sessions(self) -> Dict[str, Binding]:
        """Live sessions by Mcp-Session-Id."""
        return self.book.sessions

    def wrap(self, app) -> "StrictResumptionGuard":
        """This guard in front of `app` (an ASGI app serving the session manager)."""
        self.app = app
        return self

    def decide(self, session_id: str, last_event_id: Optional[str]) -> Decision:
        """The strict decision for a GET on `session_id` with `last_event_id`."""
        binding = self.book.sessions.get(session_id)
        number = binding.number if binding is not None else 0
        view = self._view(binding, number, last_event_id)
        return strict(ResumeRequest(number, last_event_id), view)

    def _view(self, binding: Optional[Binding], number: int,
              last_event_id: Optional[str]) -> ServerView:
        tagged = TaggedId.parse(last_event_id) if last_event_id is not None else None
        owner_binding = self.book.keys.get(tagged.key) if tagged is not None else None
        owner = owner_binding.number if owner_binding is not None else None
        if owner is None and tagged is not None and binding is not None \
                and tagged.key != binding.key:
            # Keys are random and unique: an id under another key was not issued on S, even
            # if another process issued it and this one cannot say to whom.
            owner = ANOTHER_SESSION
        buffer, position = None, NO_CURSOR if last_event_id is None else UNKNOWN
        stream = self.book.locate(tagged) if tagged is not None and owner == number else None
        if stream is not None and binding is not None:
            buffer = BufferView(tuple(e.event_id for e in stream.events),
                                stream.floor.event_id if stream.floor else None)
            position = _position(stream, tagged.seq)
        cursor = CursorView(last_event_id, owner, tagged.incarnation if tagged else None,
                            position == IN_BUFFER, position)
        return ServerView(instance=0, incarnation=self.incarnation, session=number,
                          registry_has_session=binding is not None,
                          held_locally=binding is not None, generation=self.incarnation,
                          recreates=False, buffer=buffer, cursor=cursor)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or ())
        raw_session = headers.get(SESSION_HEADER)
        session_id = raw_session.decode("latin-1") if raw_session is not None else None
        method = scope.get("method", "")
        if session_id is None:
            binding = self.book.new_binding()
        else:
            binding = self.book.sessions.get(session_id)
            raw_cursor = headers.get(LAST_EVENT_ID_HEADER)
            if method == "GET" and raw_cursor is not None:
                decision = self.decide(session_id, raw_cursor.decode("latin-1"))
                self.decisions.append((session_id, decision))
                if not decision.admitted:
                    await _refuse(decision, send)
                    return
        token = CURRENT.set(Slot(binding))
        try:
            await self.app(scope, receive, self._watch(send, binding, session_id, method))
        finally:
            CURRENT.reset(token)
            if binding is not None:
                self.book.drop_unbound(binding)   # no session came of it

    def _watch(self, send, binding: Optional[Binding], session_id: Optional[str], method: str):
        """`send`, learning from response starts: a new session's id, or that one is gone."""
        async def watching_send(message) -> None:
            if message["type"] == "http.response.start":
                status = message["status"]
                if session_id is None and binding is not None:
                    issued = dict(message.get("headers") or ()).get(SESSION_HEADER)
                    if issued is not None and 200 <= status < 300:
                        self.book.bind(binding, issued.decode("latin-1"))
                elif session_id is not None and (status == 404 or
                                                 (method == "DELETE" and status < 300)):
                    self.book.forget(session_id)
            await send(message)
        return watching_send


def _position(stream: StreamRecord, seq: int) -> str:
    """Where sequence number `seq` lies in `stream` (model.view positions)."""
    anchor = stream.anchor(seq)
    if anchor is not None:
        return AT_FLOOR if anchor is stream.floor else IN_BUFFER
    if seq >= stream.next_seq:
        return ABOVE_HWM
    return BELOW_FLOOR


async def _refuse(decision: Decision, send) -> None:
    data = {"code": decision.code.value, "reason": decision.reason}
    if decision.resume_from is not None:
        data["resume_from"] = str(decision.resume_from)
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
        "code": INVALID_REQUEST, "message": f"resumption refused: {decision.code.value}",
        "data": data}}).encode()
    await send({"type": "http.response.start", "status": decision.status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
