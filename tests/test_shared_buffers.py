"""SharedBuffers: the fleet's replay buffers in a real Redis. What one process appends, another
loads: the same ids, order, floor and messages, the capacity kept, the latest stream named."""
import anyio
import pytest
from conformance_support import require_conformance


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    require_conformance(need_redis=True)
    from simulations.conformance.processes import Processes
    from simulations.conformance.redis_server import RedisServer
    with Processes(tmp_path_factory.mktemp("buffers")) as procs:
        yield RedisServer(procs).start().url


def test_what_one_process_appends_another_loads(redis_url):
    from mcp_types import JSONRPCNotification

    from mcp_resume_guard import SharedBuffers
    from mcp_resume_guard.store import Kept, SessionBook

    async def main():
        writer_book, reader_book = SessionBook(3, 1, "global"), SessionBook(3, 2, "global")
        writer = SharedBuffers(redis_url, 3, prefix="t1:")
        binding = writer_book.new_binding()
        stream = binding.stream("7", 3)
        sent = []
        for seq in range(1, 7):
            counter = await writer.next_counter()
            message = None if seq == 1 else JSONRPCNotification(
                jsonrpc="2.0", method="notifications/message", params={"data": f"m{seq}"})
            kept = Kept(seq, str(counter), message, None, counter, 1)
            stream.keep(kept)
            await writer.append("S", stream, kept, seq == 1)
            sent.append(kept)
        reader = SharedBuffers(redis_url, 3, prefix="t1:")
        loaded = await reader.load("S", reader_book.new_binding())
        await writer.close()
        await reader.close()
        return sent, loaded
    sent, loaded = anyio.run(main)
    again = loaded.streams["7"]
    assert [k.event_id for k in again.events] == [k.event_id for k in sent[-3:]]
    assert again.floor.event_id == sent[-4].event_id and again.next_seq == 7
    assert [k.message.params["data"] for k in again.events] == ["m4", "m5", "m6"]
    assert [k.order for k in again.events] == [k.order for k in sent[-3:]]
    assert loaded.latest is again and [k.generation for k in again.events] == [1, 1, 1]
    assert [int(k.event_id) for k in sent] == list(range(1, 7))   # one counter for the fleet
