"""Helpers the registry tests share: key prefixes, a real redis-server for a module, an event
loop per call, concurrent calls and an injected clock."""
import itertools

import anyio
from conformance_support import require_conformance

from mcp_resume_guard import SessionExistsError
from simulations.conformance.processes import Processes
from simulations.conformance.redis_server import RedisServer

_PREFIXES = itertools.count()


def fresh_prefix() -> str:
    """A key prefix no other test uses: tests share one server without flushing it."""
    return f"test:{next(_PREFIXES)}:"


def redis_server(tmp_path_factory):
    """A redis-server the harness starts (skipped with a reason where none is installed); yields
    its URL and stops it by pid after."""
    require_conformance(need_redis=True)
    with Processes(tmp_path_factory.mktemp("registry")) as procs:
        yield RedisServer(procs).start().url


async def race(*calls):
    """Run the zero-argument async callables concurrently; their results, in order."""
    results = [None] * len(calls)

    async def one(index, call):
        results[index] = await call()
    async with anyio.create_task_group() as tg:
        for index, call in enumerate(calls):
            tg.start_soon(one, index, call)
    return results


def run_with(registry, body):
    """`await body(registry)` in a fresh event loop, closing the registry after."""
    async def main():
        async with registry:
            return await body(registry)
    return anyio.run(main)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def perform(reg, op, sid, *arg):
    """`reg.op(sid, *arg)`; a refused create is "exists"."""
    if op == "create":
        try:
            return await reg.create(sid)
        except SessionExistsError:
            return "exists"
    return await getattr(reg, op)(sid, *arg)
