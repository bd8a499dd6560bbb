"""LocalRegistry and RedisRegistry against a reference model (a dict of session -> generation,
created, touched, with the TTL rules) on random sequences of calls, clock advances included."""
import math
import time

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st
from registry_support import FakeClock, fresh_prefix, perform, redis_server, run_with

from mcp_resume_guard import LocalRegistry, RedisRegistry, SessionRecord


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    yield from redis_server(tmp_path_factory)


SIDS = ("a", "b")
# adopt's seen generation is the stored one plus an offset (mostly 0: a winning adopt)
OPS = st.lists(st.one_of(
    st.tuples(st.sampled_from(["create", "get", "touch", "forget"]), st.sampled_from(SIDS)),
    st.tuples(st.just("adopt"), st.sampled_from(SIDS), st.sampled_from([0, 0, 0, 1, -1])),
    st.tuples(st.just("advance"), st.sampled_from([0.0, 0.5, 1.0, 2.5, 7.0]))),
    min_size=4, max_size=50)
TTL = st.sampled_from([None, 2.0, 5.0])


class Reference:
    """What the registry must answer, as a dict of session -> (generation, created, touched)."""

    def __init__(self, clock, idle_ttl=None, absolute_ttl=None) -> None:
        self.clock, self.idle, self.cap, self.records = clock, idle_ttl, absolute_ttl, {}

    def live(self, sid):
        rec = self.records.get(sid)
        if rec is not None:
            gen, created, touched = rec
            deadline = min(math.inf if self.idle is None else touched + self.idle,
                           math.inf if self.cap is None else created + self.cap)
            if self.clock() >= deadline:
                del self.records[sid]
                return None
        return rec and SessionRecord(sid, *rec)

    def resolve(self, op, sid, *arg):
        """The operation's arguments, adopt's offset made a generation (at least 1)."""
        if op != "adopt":
            return (sid,)
        rec = self.live(sid)
        return sid, max(1, (1 if rec is None else rec.generation) + arg[0])

    def step(self, op, sid, *arg):
        now, rec = self.clock(), self.live(sid)
        if op == "create":
            if rec is not None:
                return "exists"
            self.records[sid] = (1, now, now)
            return SessionRecord(sid, 1, now, now)
        if op == "get":
            return rec
        if op == "forget":
            self.records.pop(sid, None)
            return rec is not None
        if rec is None or (op == "adopt" and rec.generation != arg[0]):
            return False if op == "touch" else None
        gen = rec.generation + (op == "adopt")
        self.records[sid] = (gen, rec.created, now)
        return True if op == "touch" else SessionRecord(sid, gen, rec.created, now)


def shape(answer):
    """An answer without its times (the Redis server's clock is not the test's)."""
    return (answer.session_id, answer.generation) if isinstance(answer, SessionRecord) \
        else answer


@given(ops=OPS, idle_ttl=TTL, absolute_ttl=TTL)
def test_local_registry_is_the_reference_model_ttls_included(ops, idle_ttl, absolute_ttl):
    clock = FakeClock()
    ref = Reference(clock, idle_ttl, absolute_ttl)

    async def body(reg):
        for op, *args in ops:
            if op == "advance":
                clock.now += args[0]
            else:
                args = ref.resolve(op, *args)
                assert await perform(reg, op, *args) == ref.step(op, *args), (op, args)
    run_with(LocalRegistry(idle_ttl, absolute_ttl, clock=clock), body)


@given(ops=OPS)
def test_local_and_redis_registries_and_the_reference_answer_alike(redis_url, ops):
    """Without TTLs: every answer equal (times aside), `created` fixed for a record's life,
    `touched` never going back, and the final contents equal."""
    ref = Reference(time.monotonic)

    async def main():
        async with LocalRegistry() as local, \
                RedisRegistry(redis_url, prefix=fresh_prefix()) as shared:
            created = {}
            for op, *args in ops:
                if op == "advance":
                    continue
                args = ref.resolve(op, *args)
                expected = shape(ref.step(op, *args))
                answers = [await perform(reg, op, *args) for reg in (local, shared)]
                assert [shape(a) for a in answers] == [expected, expected], (op, args)
                answer = answers[1]
                sid = args[0]
                if op == "forget":
                    created.pop(sid, None)
                if isinstance(answer, SessionRecord):
                    assert created.setdefault(sid, answer.created) == answer.created
                    assert answer.touched >= answer.created
            for sid in SIDS:
                expected = shape(ref.live(sid))
                assert shape(await local.get(sid)) == shape(await shared.get(sid)) == expected
    anyio.run(main)
