"""ResumptionGuard with every named gate of the model, in process: each decision is the gate's on
the view the guard builds, and each admission does what its effect says (the replayed events,
the stream the GET is attached to). The same guard in front of the real SDK is checked case by
case by tests/test_conformance.py (servers guard-<policy>)."""
import anyio
import pytest
from conformance_support import require_conformance
from hypothesis import event, given, settings
from hypothesis import strategies as st
from test_guard import FakeManager, _emit, _open, _resume

from model.policies import NAMED_GATES
from model.protocol import Effect


@pytest.fixture(autouse=True)
def _needs_the_extra():
    require_conformance()


def _guarded(gate, capacity=3, wrapping=False):
    import mcp_resume_guard
    from simulations.conformance.event_store import BoundedEventStore
    inner = BoundedEventStore(capacity + 1) if wrapping else None
    guard = mcp_resume_guard.ResumptionGuard(gate=gate, capacity=capacity, incarnation=7,
                                             inner_store=inner)
    return guard.wrap(FakeManager(guard.event_store)), guard


def _expected(effect, ids, cursor_seq, capacity):
    """(replayed ids, stream) the effect promises on S's stream "1" holding `ids` (seq 1..n),
    of which the newest `capacity` are retained and the one before them is the floor."""
    retained = ids[-capacity:]
    floor = ids[-capacity - 1] if len(ids) > capacity else None
    if effect is Effect.REPLAY:
        return [i for n, i in enumerate(ids, 1) if n > cursor_seq and i in retained], "1"
    if effect is Effect.FROM_HEAD:
        return retained, "1"
    if effect is Effect.GAP:       # the notice has no id: the client's cursor stays put
        return ([None] if floor else []) + retained, "1"
    if effect in (Effect.EMPTY, Effect.CLAMPED):
        return [], "1"
    if effect is Effect.EMPTY_CLOSE:
        return [], None
    raise AssertionError(f"unexpected effect {effect}")


@settings(max_examples=200, deadline=None)
@given(data=st.data(), gate=st.sampled_from(sorted(NAMED_GATES)), capacity=st.integers(1, 4),
       count=st.integers(1, 7), wrapping=st.booleans())
def test_every_gate_decides_on_the_guards_view_and_its_effect_is_what_happens(
        data, gate, capacity, count, wrapping):
    from mcp_resume_guard import TaggedId
    app, guard = _guarded(gate, capacity, wrapping)
    session, _ = _open(app)
    other, _ = _open(app)
    ids = _emit(app, session, "1", count)
    theirs = _emit(app, other, "1", data.draw(st.integers(1, 4), label="other's events"))
    mine = TaggedId.parse(ids[-1])
    cursor = data.draw(st.one_of(
        st.sampled_from(ids), st.sampled_from(theirs),
        st.integers(0, count + 3).map(lambda n: str(mine._replace(seq=n))),
        st.just(str(mine._replace(incarnation=8))), st.just("not-a-guard-id")), label="cursor")
    status, _, body = _resume(app, session, cursor)
    asked, decision = guard.decisions[-1]
    event(f"{gate}: {decision.effect.value}")
    assert asked == session and status == decision.status
    binding = guard.sessions[session]
    view = guard.view(binding, binding.number, cursor)
    assert decision == NAMED_GATES[gate](_request_of(binding, cursor), view)
    if not decision.admitted:
        assert body["error"]["data"]["code"] == decision.code.value
        return
    tagged = TaggedId.parse(cursor)
    if decision.effect is Effect.DETACHED:
        assert body["replayed"] == [] and body["stream"].startswith("detached-")
        return
    replayed, stream = _expected(decision.effect, ids,
                                 tagged.seq if tagged else count, capacity)
    assert (body["replayed"], body["stream"]) == (replayed, stream)


def _request_of(binding, cursor):
    from model.protocol import ResumeRequest
    return ResumeRequest(binding.number, cursor)


def test_naive_admits_a_session_this_process_does_not_hold_with_a_silent_open_stream():
    """Only a gate without a liveness check admits it; the SDK would answer 404, so the guard
    answers itself: 200, an SSE stream that carries nothing, open until the client leaves."""
    app, guard = _guarded("naive")
    session, priming = _open(app)
    sent, calls = [], []

    async def receive():
        calls.append(1)
        return {"type": "http.disconnect"} if len(calls) > 2 else {"type": "http.request"}

    async def send(message):
        sent.append(message)
    scope = {"type": "http", "method": "GET", "path": "/", "query_string": b"",
             "headers": [(b"mcp-session-id", b"never-issued"), (b"last-event-id",
                                                                priming.encode())]}
    anyio.run(app, scope, receive, send)
    assert sent[0]["status"] == 200
    assert (b"content-type", b"text/event-stream") in sent[0]["headers"]
    assert b"data:" not in b"".join(m.get("body", b"") for m in sent[1:])
    assert len(calls) == 3 and sent[-1]["more_body"] is False
    assert guard.decisions[-1][1].effect is Effect.EMPTY


def test_a_gate_that_raises_fails_closed_with_500_naming_it():
    def broken(request, view):
        raise KeyError("no such thing")
    app, _ = _guarded(broken)
    session, priming = _open(app)
    status, _, body = _resume(app, session, priming)
    assert status == 500 and body["error"]["data"]["code"] == "gate_error"
    assert "broken" in body["error"]["data"]["reason"]
    assert "KeyError" in body["error"]["data"]["reason"]


def test_an_unknown_gate_name_is_refused_naming_the_valid_ones():
    import mcp_resume_guard
    with pytest.raises(ValueError, match="strict"):
        mcp_resume_guard.ResumptionGuard(gate="strictest")


def test_a_gap_event_names_the_floor_and_replay_follows_from_it():
    """provenance answers a cursor below the floor with 200 and a leading gap event, and one
    above the high-water mark with a clamped (empty) stream."""
    app, guard = _guarded("provenance", capacity=2)
    session, _ = _open(app)
    ids = _emit(app, session, "1", 5)
    status, _, body = _resume(app, session, ids[0])
    assert status == 200 and body["replayed"] == [None, ids[3], ids[4]]
    from mcp_resume_guard import TaggedId
    ahead = str(TaggedId.parse(ids[-1])._replace(seq=9))    # above hwm: clamped, nothing
    status, _, body = _resume(app, session, ahead)
    assert (status, body["replayed"], body["stream"]) == (200, [], "1")
    assert guard.decisions[-1][1].effect is Effect.CLAMPED


def test_the_sdks_gate_closes_an_unknown_cursors_stream_and_typescripts_detaches_it():
    for gate, stream in (("sdk", None), ("sdk-typescript", "detached-")):
        app, _ = _guarded(gate)
        session, _ = _open(app)
        ids = _emit(app, session, "1", 5)           # ids[0] was dropped (capacity 3)
        status, _, body = _resume(app, session, ids[0])
        assert status == 200 and body["replayed"] == []
        assert body["stream"] == stream if stream is None else body["stream"].startswith(stream)


def _weak(gate, ids, keying, capacity=8):
    import mcp_resume_guard
    guard = mcp_resume_guard.ResumptionGuard(gate=gate, capacity=capacity, incarnation=7,
                                             ids=ids, keying=keying)
    return guard.wrap(FakeManager(guard.event_store)), guard


def test_counter_ids_are_reused_and_prove_no_issuer():
    """Per-session counters restart with every session; strict cannot tell who issued one
    (409 cursor_unverifiable), a range check reads it as a position in S's stream."""
    for gate, answer in (("strict", (409, "cursor_unverifiable")), ("range", (200, None))):
        app, guard = _weak(gate, "per_session", "session")
        a, priming_a = _open(app)
        b, priming_b = _open(app)
        ids_a, ids_b = _emit(app, a, "1", 3), _emit(app, b, "1", 3)
        assert (priming_a, priming_b) == ("1", "1") and ids_a == ids_b == ["2", "3", "4"]
        status, _, body = _resume(app, b, ids_a[0])
        code = body["error"]["data"]["code"] if status != 200 else None
        assert (status, code) == answer
        if status == 200:
            assert body["replayed"] == ids_b[1:]      # after "2" in B's own stream


def test_an_event_id_keyed_lookup_follows_a_foreign_cursor_into_its_session():
    """Like the SDK's example store (one store keyed by event id): naive finds a global
    counter id of session A when B presents it and replays A's stream to B (cross-session
    delivery); provenance sees the id in another session's stream and refuses."""
    app, guard = _weak("naive", "global", "event_id")
    a, _ = _open(app)
    b, _ = _open(app)
    ids_a = _emit(app, a, "1", 3)
    _emit(app, b, "1", 2)
    status, _, body = _resume(app, b, ids_a[0])
    assert status == 200 and body["replayed"] == ids_a[1:] and guard.decisions[-1][1].effect \
        is Effect.FOREIGN
    app, guard = _weak("provenance", "global", "event_id")
    a, _ = _open(app)
    b, _ = _open(app)
    ids_a = _emit(app, a, "1", 3)
    status, _, body = _resume(app, b, ids_a[0])
    assert (status, body["error"]["data"]["code"]) == (400, "cursor_session_mismatch")


def test_a_uuid_found_in_a_stream_names_its_session():
    app, guard = _weak("strict", "uuid", "event_id")
    a, _ = _open(app)
    b, _ = _open(app)
    ids_a = _emit(app, a, "1", 2)
    status, _, body = _resume(app, b, ids_a[0])
    assert (status, body["error"]["data"]["code"]) == (400, "cursor_session_mismatch")
    status, _, body = _resume(app, a, ids_a[0])
    assert status == 200 and body["replayed"] == ids_a[1:]


@pytest.mark.parametrize("kwargs", [{"ids": "snowflake"}, {"keying": "request_id"},
                                    {"shared_buffers": object()}])
def test_bad_id_settings_are_refused(kwargs):
    import mcp_resume_guard
    with pytest.raises(ValueError, match=next(iter(kwargs)).split("_")[0]):
        mcp_resume_guard.ResumptionGuard(**kwargs)
