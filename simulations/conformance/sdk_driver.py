"""The MCP SDK's own client, driven through a recording and gating HTTP transport.

The transport records every request the client makes (method, JSON-RPC method, Last-Event-ID,
status, which upstream answered) and can hold the client's first resumption (a GET carrying
Last-Event-ID) until the harness has done something to the servers (stop or restart one), so a
fault lands at the same point of the exchange every time. A client that keeps resuming is
stopped after `max_resumes` attempts or `budget` seconds, whichever comes first.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Awaitable, Callable, List, Optional

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from .outcome import GAP_NOTICE


@dataclass
class Exchange:
    method: str                # HTTP method
    rpc: str                   # JSON-RPC method of a POST ("" otherwise)
    last_event_id: str         # Last-Event-ID sent ("" if none)
    status: int
    upstream: str
    body: Optional[dict] = None  # the JSON body of a non-2xx answer
    ended: bool = False          # the server ended the response body (a stream it closed)
    gap: bool = False            # the body carried a gap notice (outcome.GAP_NOTICE)


class WatchedStream(httpx2.AsyncByteStream):
    """A response body passed through unchanged, noting on its Exchange whether it carried a
    gap notice and whether the server ended it (a cancelled read is not an end)."""

    def __init__(self, inner, exchange: Exchange) -> None:
        self.inner, self.exchange = inner, exchange

    async def __aiter__(self):
        tail = b""
        async for chunk in self.inner:
            seen = tail + chunk
            if GAP_NOTICE.encode() in seen:
                self.exchange.gap = True
            tail = seen[-64:]          # a notice split across chunks is still found
            yield chunk
        self.exchange.ended = True

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class ClientRun:
    """What the SDK client did and got in one case."""
    outcome: str               # "completed", "gave_up" (an error, no new session) or "stalled"
    detail: str
    labels: List[str]          # the tool's notifications the client applied, in order
    exchanges: List[Exchange] = field(default_factory=list)

    @property
    def resumes(self) -> List[Exchange]:
        return [x for x in self.exchanges if x.method == "GET" and x.last_event_id]

    @property
    def initializes(self) -> int:
        return sum(1 for x in self.exchanges if x.rpc == "initialize")


class GatingTransport(httpx2.AsyncBaseTransport):
    def __init__(self, before_resume: Optional[Callable[[], Awaitable[None]]],
                 max_resumes: int) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.before_resume = before_resume
        self.max_resumes = max_resumes
        self.exchanges: List[Exchange] = []
        self.enough = anyio.Event()

    async def handle_async_request(self, request):
        cursor = request.headers.get("last-event-id", "")
        rpc = ""
        if request.method == "POST":
            try:
                rpc = json.loads(request.content or b"{}").get("method", "")
            except ValueError:
                rpc = "?"
        if cursor and self.before_resume is not None:
            hook, self.before_resume = self.before_resume, None
            await hook()
        response = await self.inner.handle_async_request(request)
        upstream = response.headers.get("x-upstream", "").split(",")[-1].strip()
        body = None
        if response.status_code >= 400:    # read the refusal, hand the client an equal copy
            raw = await response.aread()
            try:
                body = json.loads(raw)
            except ValueError:
                body = {"raw": raw.decode(errors="replace")}
            response = httpx2.Response(response.status_code, headers=response.headers,
                                       content=raw, request=request)
        exchange = Exchange(request.method, rpc, cursor, response.status_code, upstream, body)
        if response.status_code < 400:
            response.stream = WatchedStream(response.stream, exchange)
        self.exchanges.append(exchange)
        if sum(1 for x in self.exchanges if x.last_event_id) >= self.max_resumes:
            self.enough.set()
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


async def run_sdk_client(url: str, tag: str, count: int, close_after: int,
                         before_resume: Optional[Callable[[], Awaitable[None]]] = None,
                         max_resumes: int = 6, budget: float = 20.0,
                         after_initialize: Optional[Callable[[List[Exchange]],
                                                             Awaitable[bool]]] = None
                         ) -> ClientRun:
    """Initialize with the SDK client, call `stream(tag, count, close_after)` and report what the
    client did. `after_initialize(exchanges)` may veto the session (return False): the run
    then ends as "rejected_session" before the call (used to draw a session nginx can keep)."""
    transport = GatingTransport(before_resume, max_resumes)
    labels: List[str] = []

    async def on_log(params) -> None:
        if isinstance(params.data, str) and params.data.startswith(tag + ":"):
            labels.append(params.data)

    outcome, detail = "stalled", ""
    async with httpx2.AsyncClient(transport=transport,
                                  timeout=httpx2.Timeout(10.0, read=30.0)) as http:
        with anyio.move_on_after(budget):
            async with streamable_http_client(url + "/mcp", http_client=http,
                                              terminate_on_close=False) as (read, write):
                async with ClientSession(read, write, logging_callback=on_log) as session:
                    await session.initialize()
                    if after_initialize is not None and \
                            not await after_initialize(transport.exchanges):
                        return ClientRun("rejected_session", "", [], transport.exchanges)
                    async with anyio.create_task_group() as tg:
                        async def call() -> None:
                            nonlocal outcome, detail
                            try:
                                result = await session.call_tool(
                                    "stream", {"tag": tag, "count": count,
                                               "close_after": close_after})
                                text = " ".join(getattr(c, "text", "") for c in result.content)
                                outcome = "gave_up" if result.is_error else "completed"
                                detail = text
                                if not result.is_error:
                                    labels.append(text)
                            except Exception as exc:   # the client surfaced an error
                                outcome, detail = "gave_up", f"{type(exc).__name__}: {exc}"
                            tg.cancel_scope.cancel()

                        async def watch() -> None:
                            await transport.enough.wait()
                            await anyio.sleep(0.5)   # let the last answer reach the client
                            tg.cancel_scope.cancel()

                        tg.start_soon(call)
                        tg.start_soon(watch)
        if outcome == "stalled":
            detail = (f"still resuming after {len(transport.exchanges)} requests; "
                      f"stopped by the harness")
    return ClientRun(outcome, detail, labels, transport.exchanges)
