"""StrictResumptionGuard in process: its ids, its decisions (the model's strict policy on what
the process knows) and its bookkeeping, in front of a stand-in for the SDK's session manager.
The same guard in front of the real SDK is checked by tests/test_conformance.py."""
import json

import anyio
import pytest
from conformance_support import require_conformance
from hypothesis import given, settings
from hypothesis import strategies as st


@pytest.fixture(autouse=True)
def _needs_the_extra():
    require_conformance()


def _guard_package():
    import mcp_resume_guard
    return mcp_resume_guard


class FakeManager:
    """Stands in for StreamableHTTPSessionManager: issues session ids on a request without one
    (storing a priming event before the response starts, as the SDK does), stores `count` events
    on stream <path> for a POST, replays for a GET with Last-Event-ID, forgets on DELETE."""

    def __init__(self, store):
        self.store, self.sessions, self.issued = store, set(), 0

    async def __call__(self, scope, receive, send):
        headers = dict(scope["headers"])
        sid = headers.get(b"mcp-session-id")
        if sid is None:
            self.issued += 1
            sid = f"s{self.issued}".encode()
            self.sessions.add(sid)
            priming = await self.store.store_event("0", None)
            return await _answer(send, 200, {"priming": priming}, [(b"mcp-session-id", sid)])
        if sid not in self.sessions:
            return await _answer(send, 404, {"error": {"message": "Session not found"}})
        if scope["method"] == "POST":
            count = int(scope["query_string"] or b"1")
            ids = [await self.store.store_event(scope["path"].strip("/"), {"n": n})
                   for n in range(count)]
            return await _answer(send, 200, {"ids": ids})
        if scope["method"] == "DELETE":
            self.sessions.discard(sid)
            return await _answer(send, 200, {})
        replayed = []

        async def collect(event):
            replayed.append(event.event_id)
        stream = await self.store.replay_events_after(headers[b"last-event-id"].decode(), collect)
        return await _answer(send, 200, {"stream": stream, "replayed": replayed})


async def _answer(send, status, body, headers=()):
    await send({"type": "http.response.start", "status": status, "headers": list(headers)})
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})


async def _request(app, method, path="/", session=None, cursor=None, query=b""):
    headers = []
    if session is not None:
        headers.append((b"mcp-session-id", session.encode()))
    if cursor is not None:
        headers.append((b"last-event-id", cursor.encode()))
    scope = {"type": "http", "method": method, "path": path, "headers": headers,
             "query_string": query}
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)
    await app(scope, receive, send)
    start = sent[0]
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], dict(start["headers"]), json.loads(body)


def _guarded(capacity=3, incarnation=7, wrapping=False):
    """A guard in front of the stand-in manager; `wrapping`: around the SDK-example-style store
    (whose streams, keyed by request id alone, would mix sessions without the guard)."""
    from simulations.conformance.event_store import BoundedEventStore
    inner = BoundedEventStore(capacity + 1) if wrapping else None
    guard = _guard_package().StrictResumptionGuard(capacity=capacity, incarnation=incarnation,
                                                  inner_store=inner)
    return guard.wrap(FakeManager(guard.event_store)), guard


def _open(app):
    """A new session: (session id, priming id)."""
    status, headers, body = anyio.run(_request, app, "GET")
    return headers[b"mcp-session-id"].decode(), body["priming"]


def _emit(app, session, stream, count):
    return anyio.run(_request, app, "POST", f"/{stream}", session, None,
                     str(count).encode())[2]["ids"]


def _resume(app, session, cursor):
    return anyio.run(_request, app, "GET", "/", session, cursor)


@given(key=st.text("0123456789abcdef", min_size=1, max_size=16),
       numbers=st.tuples(*[st.integers(0, 10**9)] * 3))
def test_tagged_ids_round_trip(key, numbers):
    tagged = _guard_package().TaggedId(key, *numbers)
    assert _guard_package().TaggedId.parse(str(tagged)) == tagged


@pytest.mark.parametrize("text", ["", "abc", "a-1-2", "a-1-2-x", "a--2-3", "a-1-2-3-4", "-1-2-3"])
def test_text_that_is_not_a_tagged_id_parses_to_none(text):
    assert _guard_package().TaggedId.parse(text) is None


@pytest.mark.parametrize("wrapping", [False, True])
def test_ids_minted_before_the_session_id_is_known_carry_the_session(wrapping):
    app, guard = _guarded(wrapping=wrapping)
    session, priming = _open(app)
    ids = _emit(app, session, "1", 2)
    key = guard.sessions[session].key
    assert priming.startswith(key + "-7-") and all(i.startswith(key + "-7-") for i in ids)
    status, _, body = _resume(app, session, priming)
    assert status == 200 and body["replayed"] == [] and body["stream"] == "0"


@settings(max_examples=150, deadline=None)
@given(data=st.data(), sessions=st.integers(1, 3), capacity=st.integers(1, 4),
       wrapping=st.booleans())
def test_every_decision_is_strict_and_a_replay_never_crosses_sessions(data, sessions, capacity,
                                                                      wrapping):
    """Sessions whose calls share a request id ("1"), like SDK clients' calls: the guard still
    keeps each session's stream apart (also around a store that would not), and decides like
    the model's strict policy."""
    app, guard = _guarded(capacity, wrapping=wrapping)
    opened = [_open(app)[0] for _ in range(sessions)]
    emitted = {s: _emit(app, s, "1", data.draw(st.integers(1, 6), label=f"events of {s}"))
               for s in opened}
    asker = data.draw(st.sampled_from(opened + ["never-issued"]), label="asking session")
    owner = data.draw(st.sampled_from(opened), label="cursor's session")
    index = data.draw(st.integers(0, len(emitted[owner]) - 1), label="cursor index")
    cursor = emitted[owner][index]
    status, _, body = _resume(app, asker, cursor)
    ids = emitted[owner]
    if asker == "never-issued":
        assert (status, body["error"]["data"]["code"]) == (404, "session_not_found")
    elif asker != owner:
        assert (status, body["error"]["data"]["code"]) == (400, "cursor_session_mismatch")
    elif index < len(ids) - capacity - 1:           # dropped before the floor: a gap
        assert (status, body["error"]["data"]["code"]) == (409, "replay_gap")
        assert body["error"]["data"]["resume_from"] == ids[len(ids) - capacity - 1]
    else:                                           # retained, or the floor itself
        assert status == 200 and body["replayed"] == ids[index + 1:]
    assert guard.decisions[-1][1].status == status


def test_a_cursor_from_another_incarnation_is_refused():
    app, guard = _guarded(incarnation=7)
    session, _ = _open(app)
    ids = _emit(app, session, "1", 2)
    tagged = _guard_package().TaggedId.parse(ids[-1])
    other_generation = str(tagged._replace(incarnation=8))
    status, _, body = _resume(app, session, other_generation)
    assert (status, body["error"]["data"]["code"]) == (409, "generation_mismatch")
    status, _, body = _resume(app, session, "not-a-guard-id")
    assert (status, body["error"]["data"]["code"]) == (409, "cursor_unverifiable")


def test_a_cursor_another_process_minted_is_foreign_not_unverifiable():
    """Regression (differential finding foreign_cursor_from_another_instance): an id under a
    key this process never minted was still not issued on S (keys are random and unique), so
    the guard answers 400 cursor_session_mismatch, as the model's strict does with tagged ids,
    whichever process minted it."""
    app, _ = _guarded()
    session, _ = _open(app)
    ids = _emit(app, session, "1", 2)
    minted_elsewhere = str(_guard_package().TaggedId.parse(ids[-1])._replace(key="f" * 16))
    status, _, body = _resume(app, session, minted_elsewhere)
    assert (status, body["error"]["data"]["code"]) == (400, "cursor_session_mismatch")


def test_a_cursor_above_the_high_water_mark_is_never_clamped():
    app, _ = _guarded()
    session, _ = _open(app)
    ids = _emit(app, session, "1", 2)
    ahead = str(_guard_package().TaggedId.parse(ids[-1])._replace(seq=99))
    status, _, body = _resume(app, session, ahead)
    assert (status, body["error"]["data"]["code"]) == (409, "cursor_ahead")


def test_a_session_is_forgotten_on_delete_and_on_the_sdks_404():
    app, guard = _guarded()
    session, priming = _open(app)
    assert anyio.run(_request, app, "DELETE", "/", session)[0] == 200
    assert session not in guard.sessions
    status, _, body = _resume(app, session, priming)
    assert (status, body["error"]["data"]["code"]) == (404, "session_not_found")
    other, _ = _open(app)
    app.app.sessions.discard(other.encode())          # the SDK reaps it (idle timeout)
    assert anyio.run(_request, app, "POST", "/1", other)[0] == 404
    assert other not in guard.sessions


def test_an_inner_store_that_mixes_streams_is_caught_not_replayed():
    """A wrapped store that replays an event the stream never stored is a bug in that store:
    the replay fails loudly instead of delivering it."""
    from simulations.conformance.event_store import BoundedEventStore

    class Mixing(BoundedEventStore):
        async def replay_events_after(self, last_event_id, send_callback):
            from mcp.server.streamable_http import EventMessage
            await send_callback(EventMessage({"n": "stranger"}, "not-one-of-ours"))
            return "1"
    guard = _guard_package().StrictResumptionGuard(capacity=4, inner_store=Mixing(4))
    app = guard.wrap(FakeManager(guard.event_store))
    session, _ = _open(app)
    ids = _emit(app, session, "1", 2)
    with pytest.raises(RuntimeError, match="mixes streams"):
        _resume(app, session, ids[0])


def test_an_inner_store_keeping_too_little_fails_loudly_instead_of_stalling():
    from simulations.conformance.event_store import BoundedEventStore
    guard = _guard_package().StrictResumptionGuard(capacity=1, inner_store=BoundedEventStore(1))
    app = guard.wrap(FakeManager(guard.event_store))
    session, _ = _open(app)
    ids = _emit(app, session, "1", 2)          # ids[0] is the floor: a valid cursor
    with pytest.raises(RuntimeError, match="capacity \\+ 1 = 2"):
        _resume(app, session, ids[0])


def test_the_store_outside_the_guard_says_how_to_use_it():
    guard = _guard_package().StrictResumptionGuard(capacity=2)
    with pytest.raises(RuntimeError, match="guard.wrap"):
        anyio.run(guard.event_store.store_event, "1", None)


@pytest.mark.parametrize("kwargs", [{"capacity": 0}, {"capacity": True}, {"incarnation": -1}])
def test_bad_guard_settings_are_refused(kwargs):
    with pytest.raises(ValueError):
        _guard_package().StrictResumptionGuard(**kwargs)
