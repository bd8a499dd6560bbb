"""StrictResumptionGuard: the `strict` policy (DESIGN §1) enforced in front of the MCP Python SDK.

Put it around the ASGI app that serves a `StreamableHTTPSessionManager` and give the manager the
guard's event store:

    guard = StrictResumptionGuard(capacity=256)
    app = server.streamable_http_app(event_store=guard.event_store)   # or your own manager
    app = guard.wrap(app)

What it adds to the SDK:
- event ids that encode the session, the process incarnation (generation), the stream and a
  sequence number: `<session key>-<incarnation>-<stream>-<seq>`. The session key is a random
  nonce the guard binds to the SDK's `Mcp-Session-Id` when the initialize response carries it
  (the SDK's `EventStore` is not told the session; the guard passes it through a context
  variable the session's tasks inherit from the request that created them);
- a check of every resumption (GET + Last-Event-ID) before the SDK sees it: liveness, provenance,
  generation, reachability, in that order. The decision is `model.policies.strict` itself, run on
  a `ServerView` built from what this process knows, so the guard and the model cannot drift.
  A refusal is a JSON-RPC error body with the structured code in `error.data.code` (and, for a
  gap, the earliest cursor to resume after in `error.data.resume_from`).

Invariants: an id is issued once per process incarnation; an event leaves the store only when
its stream's buffer overflows (the floor rises); a session is forgotten when the SDK answers 404
for it or a DELETE succeeds.
"""
from __future__ import annotations

import json
import secrets
from collections import deque
from contextvars import ContextVar
from typing import Deque, Dict, List, NamedTuple, Optional, Tuple

from mcp.server.streamable_http import EventCallback, EventMessage, EventStore

from model.policies import strict
from model.protocol import Decision, ResumeRequest
from model.view import (ABOVE_HWM, AT_FLOOR, BELOW_FLOOR, IN_BUFFER, NO_CURSOR, UNKNOWN,
                        BufferView, CursorView, ServerView)

SESSION_HEADER = b"mcp-session-id"
LAST_EVENT_ID_HEADER = b"last-event-id"
#: JSON-RPC error code of a refused resumption (the SDK uses -32600 for its own 404).
INVALID_REQUEST = -32600


class TaggedId(NamedTuple):
    key: str
    incarnation: int
    stream: int
    seq: int

    def __str__(self) -> str:
        return f"{self.key}-{self.incarnation}-{self.stream}-{self.seq}"

    @staticmethod
    def parse(text: str) -> Optional["TaggedId"]:
        """The id's parts, or None when `text` is not an id of this format."""
        parts = text.split("-")
        if len(parts) != 4 or not all(parts) or not all(p.isdigit() for p in parts[1:]):
            return None
        return TaggedId(parts[0], int(parts[1]), int(parts[2]), int(parts[3]))


class _Stream:
    """One SDK stream of one session: its retained events and its replay floor."""

    def __init__(self, stream_id: str, number: int, capacity: int) -> None:
        self.stream_id = stream_id
        self.number = number
        self.events: Deque[Tuple[int, str, object]] = deque()   # (seq, event id, message)
        self.capacity = capacity
        self.next_seq = 1
        self.floor: Optional[Tuple[int, str]] = None            # the last dropped (seq, id)


class Binding:
    """One session as the guard knows it: `number` is its session number in the model's view."""

    def __init__(self, number: int, key: str) -> None:
        self.number = number
        self.key = key
        self.session_id: Optional[str] = None
        self.streams: Dict[str, _Stream] = {}
        self.by_number: List[_Stream] = []

    def stream(self, stream_id: str, capacity: int) -> _Stream:
        found = self.streams.get(stream_id)
        if found is None:
            found = _Stream(stream_id, len(self.by_number), capacity)
            self.streams[stream_id] = found
            self.by_number.append(found)
        return found


class _Slot:
    """The session the current request (and every task it starts) works for."""

    __slots__ = ("binding",)

    def __init__(self, binding: Optional[Binding]) -> None:
        self.binding = binding


_CURRENT: ContextVar[Optional[_Slot]] = ContextVar("mcp_resumption_guard", default=None)


class GuardedEventStore(EventStore):
    """The event store the guard hands to the SDK: tagged ids, one bounded buffer per stream of
    each session (never shared across sessions, whatever the request ids)."""

    def __init__(self, guard: "StrictResumptionGuard") -> None:
        self.guard = guard

    async def store_event(self, stream_id, message) -> str:
        slot = _CURRENT.get()
        if slot is None or slot.binding is None:
            raise RuntimeError("GuardedEventStore used outside StrictResumptionGuard: wrap the "
                               "ASGI app that serves the session manager with guard.wrap(app)")
        stream = slot.binding.stream(str(stream_id), self.guard.capacity)
        event_id = str(TaggedId(slot.binding.key, self.guard.incarnation, stream.number,
                                stream.next_seq))
        if len(stream.events) == stream.capacity:
            seq, dropped, _ = stream.events.popleft()
            stream.floor = (seq, dropped)
        stream.events.append((stream.next_seq, event_id, message))
        stream.next_seq += 1
        return event_id

    async def replay_events_after(self, last_event_id, send_callback: EventCallback
                                  ) -> Optional[str]:
        tagged = TaggedId.parse(str(last_event_id))
        binding = self.guard.keys.get(tagged.key) if tagged else None
        if binding is None or not 0 <= tagged.stream < len(binding.by_number):
            return None
        stream = binding.by_number[tagged.stream]
        for seq, event_id, message in list(stream.events):
            if seq > tagged.seq and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream.stream_id


class StrictResumptionGuard:
    """ASGI middleware enforcing `strict` on resumptions; see the module docstring."""

    def __init__(self, app=None, *, capacity: int = 256, incarnation: Optional[int] = None):
        if not isinstance(capacity, int) or isinstance(capacity, bool) or capacity < 1:
            raise ValueError(f"capacity must be a positive integer, got {capacity!r}")
        if incarnation is None:
            incarnation = secrets.randbits(31)
        if not isinstance(incarnation, int) or incarnation < 0:
            raise ValueError(f"incarnation must be a non-negative integer, got {incarnation!r}")
        self.app = app
        self.capacity = capacity
        self.incarnation = incarnation
        self.event_store = GuardedEventStore(self)
        self.sessions: Dict[str, Binding] = {}     # live Mcp-Session-Id -> binding
        self.keys: Dict[str, Binding] = {}         # id key -> binding (pending ones included)
        self._numbers = 0
        self.decisions: List[Tuple[str, Decision]] = []   # what it decided, newest last

    def wrap(self, app) -> "StrictResumptionGuard":
        """This guard in front of `app` (an ASGI app serving the session manager)."""
        self.app = app
        return self

    def decide(self, session_id: str, last_event_id: Optional[str]) -> Decision:
        """The strict decision for a GET on `session_id` with `last_event_id`."""
        binding = self.sessions.get(session_id)
        number = binding.number if binding is not None else 0
        view = self._view(binding, number, last_event_id)
        return strict(ResumeRequest(number, last_event_id), view)

    def _view(self, binding: Optional[Binding], number: int,
              last_event_id: Optional[str]) -> ServerView:
        tagged = TaggedId.parse(last_event_id) if last_event_id is not None else None
        owner_binding = self.keys.get(tagged.key) if tagged is not None else None
        owner = owner_binding.number if owner_binding is not None else None
        buffer, position = None, NO_CURSOR if last_event_id is None else UNKNOWN
        if tagged is not None and binding is not None and owner == number \
                and tagged.stream < len(binding.by_number):
            stream = binding.by_number[tagged.stream]
            buffer = BufferView(tuple(e for _, e, _ in stream.events),
                                stream.floor[1] if stream.floor else None)
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
            binding = self._new_binding()
        else:
            binding = self.sessions.get(session_id)
            raw_cursor = headers.get(LAST_EVENT_ID_HEADER)
            if method == "GET" and raw_cursor is not None:
                decision = self.decide(session_id, raw_cursor.decode("latin-1"))
                self.decisions.append((session_id, decision))
                if not decision.admitted:
                    await _refuse(decision, send)
                    return
        token = _CURRENT.set(_Slot(binding))
        try:
            await self.app(scope, receive, self._watch(send, binding, session_id, method))
        finally:
            _CURRENT.reset(token)
            if binding is not None and binding.session_id is None:
                self.keys.pop(binding.key, None)   # no session came of it

    def _new_binding(self) -> Binding:
        self._numbers += 1
        binding = Binding(self._numbers, secrets.token_hex(8))
        self.keys[binding.key] = binding
        return binding

    def _watch(self, send, binding: Optional[Binding], session_id: Optional[str], method: str):
        """`send`, learning from response starts: a new session's id, or that one is gone."""
        async def watching_send(message) -> None:
            if message["type"] == "http.response.start":
                status = message["status"]
                if session_id is None and binding is not None:
                    issued = dict(message.get("headers") or ()).get(SESSION_HEADER)
                    if issued is not None and 200 <= status < 300:
                        binding.session_id = issued.decode("latin-1")
                        self.sessions[binding.session_id] = binding
                elif session_id is not None and (status == 404 or
                                                 (method == "DELETE" and status < 300)):
                    self._forget(session_id)
            await send(message)
        return watching_send

    def _forget(self, session_id: str) -> None:
        gone = self.sessions.pop(session_id, None)
        if gone is not None:
            self.keys.pop(gone.key, None)


def _position(stream: _Stream, seq: int) -> str:
    """Where sequence number `seq` lies in `stream` (model.view positions)."""
    if any(s == seq for s, _, _ in stream.events):
        return IN_BUFFER
    if stream.floor is not None and seq == stream.floor[0]:
        return AT_FLOOR
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
