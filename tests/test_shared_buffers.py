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


def test_loaded_streams_keep_the_numbers_their_tagged_ids_were_minted_with():
    """Regression (the fleet's `result_lost_in_a_restart`): the initialize request's stream is
    stored before the session has an id, so it never reaches the shared buffers, and a process
    that loaded the session's streams numbered them one short: a tagged cursor of stream 1
    named the adopting process's rerun stream, whose replay after the cursor is empty. Loaded
    streams now sit at their minted numbers, the missing one an empty placeholder, and a stream
    created afterwards takes the next number."""
    from mcp_resume_guard.ids import TaggedId
    from mcp_resume_guard.shared_buffers import renumber
    from mcp_resume_guard.store import Kept, SessionBook

    book = SessionBook(4, 2)
    binding = book.new_binding()
    call = binding.stream("1", 4)                  # loaded first: Redis never had stream 0
    for seq in (1, 2, 3):
        call.keep(Kept(seq, str(TaggedId("k", 1, 1, seq)), None, None, seq, 1))
    renumber(binding)
    cursor = str(TaggedId("k", 1, 1, 2))
    assert binding.by_number[1] is call and call.number == 1
    assert binding.by_number[0].events == type(call.events)() and \
        binding.by_number[0].stream_id not in binding.streams
    assert binding.own_stream(cursor) is call
    rerun = binding.stream("adopt", 4)
    assert rerun.number == 2 and binding.own_stream(cursor) is call
    untagged = book.new_binding()
    plain = untagged.stream("7", 4)
    plain.keep(Kept(1, "41", None, None, 41, 1))
    renumber(untagged)                               # counter ids: the order as loaded
    assert untagged.by_number == [plain] and plain.number == 0
