"""The fleet's session registry: LocalRegistry (per process) and RedisRegistry (shared, on a real
redis-server the harness starts) behave alike and like a reference dict; TTLs expire records
(idle renewed by touch, absolute never extended); two processes on one Redis see one registry
and a racing adopt has exactly one winner (against a reference model on random sequences:
test_registry_reference.py; view_fields: test_registry_view.py)."""
import math
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import anyio
import pytest
from registry_support import FakeClock, fresh_prefix, perform, race, redis_server, run_with

from mcp_resume_guard import (
    LocalRegistry,
    RedisRegistry,
    SessionExistsError,
    SessionRecord,
)

ROOT = Path(__file__).resolve().parent.parent
@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    yield from redis_server(tmp_path_factory)


@pytest.fixture(params=["local", "redis"])
def make(request):
    """A factory of fresh, empty registries of one kind (TTLs as keywords)."""
    if request.param == "local":
        return LocalRegistry
    url = request.getfixturevalue("redis_url")
    return lambda **ttls: RedisRegistry(url, prefix=fresh_prefix(), **ttls)


# --- the interface, on both implementations ---------------------------------------------------

def test_create_starts_at_generation_one_and_refuses_a_second_create(make):
    async def body(reg):
        record = await reg.create("s1")
        assert record.session_id == "s1" and record.generation == 1
        assert record.created == record.touched
        assert await reg.get("s1") == record
        with pytest.raises(SessionExistsError):
            await reg.create("s1")
        assert await reg.get("s1") == record
        assert await reg.get("s2") is None
        assert (await reg.create("s2")).generation == 1
    run_with(make(), body)


def test_a_label_lives_with_its_session(make):
    """The guard's id key of a session, kept beside it: readable by every process while the
    session lives, gone with it, refused for a session that is not registered."""
    async def body(reg):
        assert await reg.set_label("s1", "k1") is False
        await reg.create("s1")
        assert await reg.label_of("s1") is None
        assert await reg.set_label("s1", "k1") is True
        assert await reg.label_of("s1") == "k1"
        assert (await reg.adopt("s1", 1)).generation == 2
        assert await reg.label_of("s1") == "k1"             # a new generation keeps its key
        await reg.forget("s1")
        assert await reg.label_of("s1") is None
    run_with(make(), body)


def test_touch_renews_only_a_registered_session_and_keeps_generation_and_creation(make):
    async def body(reg):
        first = await reg.create("s")
        await anyio.sleep(0.01)
        assert await reg.touch("s") is True
        after = await reg.get("s")
        assert (after.generation, after.created) == (1, first.created)
        assert after.touched > first.touched
        assert await reg.touch("unknown") is False
        assert await reg.get("unknown") is None
    run_with(make(), body)


def test_adopt_is_a_compare_and_set_on_the_generation(make):
    async def body(reg):
        first = await reg.create("s")
        second = await reg.adopt("s", 1)
        assert second.generation == 2 and second.created == first.created
        assert second.touched >= first.touched
        assert await reg.adopt("s", 1) is None        # stale: someone already adopted 1
        assert (await reg.get("s")).generation == 2
        assert (await reg.adopt("s", 2)).generation == 3
        assert await reg.adopt("s", 5) is None         # never seen
        assert (await reg.get("s")).generation == 3
        assert await reg.adopt("gone", 1) is None
        assert await reg.get("gone") is None
    run_with(make(), body)


def test_forget_removes_the_session_and_a_new_create_starts_over(make):
    async def body(reg):
        await reg.create("s")
        await reg.adopt("s", 1)
        await reg.create("other")
        assert await reg.forget("s") is True
        assert await reg.forget("s") is False
        assert await reg.get("s") is None
        assert await reg.touch("s") is False
        assert await reg.adopt("s", 2) is None
        assert (await reg.create("s")).generation == 1
        assert (await reg.get("other")).generation == 1
    run_with(make(), body)


def test_concurrent_adopts_of_one_generation_have_exactly_one_winner(make):
    async def body(reg):
        for n in range(20):
            await reg.create(f"s{n}")
            results = await race(*[partial(reg.adopt, f"s{n}", 1)] * 5)
            winners = [r for r in results if r is not None]
            assert len(results) == 5 and len(winners) == 1 and winners[0].generation == 2
            assert (await reg.get(f"s{n}")).generation == 2
    run_with(make(), body)


@pytest.mark.parametrize("call", [
    lambda reg: reg.create(""), lambda reg: reg.get(7), lambda reg: reg.touch(None),
    lambda reg: reg.forget(b"s"), lambda reg: reg.adopt("s", 0), lambda reg: reg.adopt("s", 1.0),
    lambda reg: reg.adopt("s", True)])
def test_bad_session_ids_and_generations_are_value_errors_naming_them(make, call):
    async def body(reg):
        with pytest.raises(ValueError, match="session_id|seen_generation"):
            await call(reg)
    run_with(make(), body)


# --- TTLs ---------------------------------------------------------------------------------------

def poll_until_gone(reg, sid, keep=(), limit=15.0):
    """Touch every session in `keep` until `sid` is gone (or `limit` s pass: a failure); whether
    each kept session was still there at that moment."""
    async def body(reg):
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            kept = [await reg.touch(k) for k in keep]
            if await reg.get(sid) is None:
                return kept
            await anyio.sleep(0.02)
        pytest.fail(f"{sid} was still registered after {limit} s")
    return body


def test_an_idle_session_expires_and_a_touched_one_is_kept(make):
    async def body(reg):
        await reg.create("idle")
        await reg.create("busy")
        assert await poll_until_gone(reg, "idle", keep=["busy"])(reg) == [True]
        assert (await reg.get("busy")).generation == 1
        assert await reg.touch("idle") is False and await reg.adopt("idle", 1) is None
        await poll_until_gone(reg, "busy")(reg)         # left alone, it expires too
    run_with(make(idle_ttl=0.6), body)


def test_the_absolute_ttl_expires_a_session_however_often_it_is_touched(make):
    async def body(reg):
        await reg.create("s")
        await poll_until_gone(reg, "s", keep=["s"])(reg)
        assert await reg.touch("s") is False
        assert (await reg.create("s")).generation == 1   # the id is free again
    run_with(make(idle_ttl=30, absolute_ttl=0.4), body)


def test_local_ttls_on_an_injected_clock():
    clock = FakeClock()
    reg = LocalRegistry(idle_ttl=10, absolute_ttl=25, clock=clock)

    async def body(reg):
        assert await reg.create("s") == SessionRecord("s", 1, 100.0, 100.0)
        clock.now = 109.5
        assert await reg.touch("s")                      # idle deadline now 119.5
        clock.now = 119.0
        assert await reg.get("s") == SessionRecord("s", 1, 100.0, 109.5)
        assert await reg.adopt("s", 1) == SessionRecord("s", 2, 100.0, 119.0)
        clock.now = 124.9
        assert await reg.touch("s")                      # idle 134.9, capped at 125
        assert (await reg.get("s")).touched == 124.9
        clock.now = 125.0
        assert await reg.get("s") is None                # absolute: gone at its deadline
        assert await reg.create("t") == SessionRecord("t", 1, 125.0, 125.0)
        clock.now = 134.99
        assert await reg.get("t") is not None
        clock.now = 135.0
        assert await reg.get("t") is None                # idle: gone at its deadline
        assert await reg.forget("t") is False
    run_with(reg, body)


def test_local_expired_records_are_swept_so_memory_follows_the_live_ones():
    clock = FakeClock()
    reg = LocalRegistry(idle_ttl=1, clock=clock)

    async def body(reg):
        for n in range(1000):
            await reg.create(f"s{n}")
            clock.now += 0.01                           # about 100 live at any time
        assert len(reg._records) <= 2 * 101 + 64
    run_with(reg, body)


def ms(seconds: float) -> int:
    return round(seconds * 1000)


def test_redis_expiry_is_min_of_touched_plus_idle_and_created_plus_absolute(redis_url):
    """The key's PEXPIRETIME is exactly the deadline, on the Redis server's clock (in ms)."""
    async def body(reg):
        client = reg.client
        no_cap = RedisRegistry(client, prefix=reg.prefix + "u:")
        record = await no_cap.create("s")
        assert await client.pexpiretime(no_cap.key("s")) == -1       # no TTL: persists
        record = await reg.create("s")
        assert await client.pexpiretime(reg.key("s")) == ms(record.created) + 4000
        await anyio.sleep(0.01)
        await reg.touch("s")
        touched = (await reg.get("s")).touched
        assert touched > record.created
        assert await client.pexpiretime(reg.key("s")) == ms(touched) + 4000
        await anyio.sleep(1.01)
        adopted = await reg.adopt("s", 1)
        # idle deadline touched + 4 s is past created + 5 s: the absolute TTL bounds it
        assert ms(adopted.touched) + 4000 > ms(record.created) + 5000
        assert await client.pexpiretime(reg.key("s")) == ms(record.created) + 5000
        assert sorted(await client.hkeys(reg.key("s"))) == [b"created", b"generation",
                                                             b"touched"]
        assert abs(record.created - time.time()) < 60       # Unix time, from the server
        await no_cap.close()
    run_with(RedisRegistry(redis_url, prefix=fresh_prefix(), idle_ttl=4, absolute_ttl=5), body)


# --- the fleet: two processes on one Redis ------------------------------------------------------

def test_two_clients_on_one_redis_see_one_registry(redis_url):
    prefix = fresh_prefix()

    async def main():
        async with RedisRegistry(redis_url, prefix=prefix) as a, \
                RedisRegistry(redis_url, prefix=prefix) as b, \
                RedisRegistry(redis_url, prefix=fresh_prefix()) as elsewhere:
            created = await a.create("s")
            assert await b.get("s") == created
            with pytest.raises(SessionExistsError):
                await b.create("s")
            assert await elsewhere.get("s") is None      # another prefix, another registry
            adopted = await b.adopt("s", 1)
            assert await a.get("s") == adopted and adopted.generation == 2
            assert await a.adopt("s", 1) is None
            assert await a.touch("s") and (await b.get("s")).touched >= adopted.touched
            assert await b.forget("s") is True
            assert await a.get("s") is None and await a.touch("s") is False
    anyio.run(main)


def test_racing_processes_adopt_and_create_with_exactly_one_winner(redis_url):
    prefix = fresh_prefix()

    async def main():
        fleet = [RedisRegistry(redis_url, prefix=prefix) for _ in range(4)]
        try:
            for n in range(25):
                sid = f"s{n}"
                for op, *args in (("create",), ("adopt", 1), ("adopt", 2)):
                    results = await race(*[partial(perform, reg, op, sid, *args)
                                           for reg in fleet])
                    winners = [r for r in results if r not in (None, "exists")]
                    assert len(results) == len(fleet) and len(winners) == 1, (op, args, results)
                    assert (await fleet[0].get(sid)) == winners[0]
                assert winners[0].generation == 3
        finally:
            for reg in fleet:
                await reg.close()
    anyio.run(main)


def test_a_registry_given_a_client_leaves_it_open(redis_url):
    async def main():
        import redis.asyncio
        client = redis.asyncio.Redis.from_url(redis_url)
        async with RedisRegistry(client, prefix=fresh_prefix()) as reg:
            await reg.create("s")
        assert await client.ping() is True
        assert (await RedisRegistry(client, prefix=reg.prefix).get("s")).generation == 1
        await client.aclose()
    anyio.run(main)


# --- construction and packaging -----------------------------------------------------------------

@pytest.mark.parametrize("kwargs, name", [
    ({"idle_ttl": 0}, "idle_ttl"), ({"idle_ttl": -1.5}, "idle_ttl"),
    ({"idle_ttl": "1"}, "idle_ttl"), ({"idle_ttl": True}, "idle_ttl"),
    ({"absolute_ttl": math.inf}, "absolute_ttl"), ({"absolute_ttl": math.nan}, "absolute_ttl"),
    ({"absolute_ttl": 0.0}, "absolute_ttl")])
def test_bad_ttls_are_value_errors_naming_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        LocalRegistry(**kwargs)
    with pytest.raises(ValueError, match=name):
        RedisRegistry("redis://127.0.0.1:1/0", **kwargs)


def test_bad_prefix_client_and_clock_are_value_errors_naming_the_argument():
    for prefix in ("", 3, None):
        with pytest.raises(ValueError, match="prefix"):
            RedisRegistry("redis://127.0.0.1:1/0", prefix=prefix)
    for target in ("", 42, None):
        with pytest.raises(ValueError, match="url_or_client"):
            RedisRegistry(target)
    with pytest.raises(ValueError, match="clock"):
        LocalRegistry(clock=5.0)
    assert LocalRegistry(idle_ttl=1, absolute_ttl=2.5).absolute_ttl == 2.5


def test_the_package_does_not_import_redis_and_a_missing_client_is_named(monkeypatch):
    code = "import sys, mcp_resume_guard; print(sorted(m for m in sys.modules if 'redis' in m))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    monkeypatch.setitem(sys.modules, "redis", None)
    monkeypatch.setitem(sys.modules, "redis.asyncio", None)
    with pytest.raises(ImportError, match=r"pip install -e '\.\[guard-redis\]'"):
        RedisRegistry("redis://127.0.0.1:1/0")
    assert LocalRegistry() is not None
