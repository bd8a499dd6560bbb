"""SSE streams held open across lockstep steps.

Each open stream (a tool call's POST, a resumption's GET) is read by its own task on an event
loop running in a background thread (an anyio blocking portal), which appends every event it
reads to `OpenStream.events`. The lockstep engine, in the main thread, waits on that list with a
deadline, so nothing here can block forever. A stream ends in one of three ways: the server
closes it (`closed`), the harness drops it (the connection is closed, the server sees it go), or
the harness abandons it (a half-open connection: the client stops listening, the socket stays
open, the server goes on writing into it).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import anyio
import httpx

from .. import loopback
from ..wire import ACCEPT, PROTOCOL_VERSION, SSE

#: seconds to wait for an event the model says is on its way, and for a stream to close
ARRIVAL_WAIT = 3.0
#: seconds an open stream must stay silent (or open) before the harness says it is
QUIET_WAIT = 0.25


@dataclass
class OpenStream:
    """One SSE response being read in the background."""
    status: int = 0
    headers: Dict[str, str] = field(default_factory=dict)
    body: Optional[dict] = None            # a non-SSE answer's JSON body
    events: List[SSE] = field(default_factory=list)
    closed: bool = False                   # the server ended the stream
    abandoned: bool = False                # half-open: the client no longer listens
    error: str = ""
    scope: Optional[anyio.CancelScope] = None

    @property
    def is_sse(self) -> bool:
        return self.headers.get("content-type", "").startswith("text/event-stream")

    def wait_until(self, condition, timeout: float = ARRIVAL_WAIT) -> bool:
        """Wait until `condition()` holds or the stream closed (at most `timeout` s)."""
        deadline = time.monotonic() + timeout
        while not condition() and not self.closed and time.monotonic() < deadline:
            time.sleep(0.005)
        return bool(condition())

    def wait_for(self, count: int, timeout: float = ARRIVAL_WAIT) -> bool:
        """Wait until `count` events have arrived (or the stream closed); True if they did."""
        return self.wait_until(lambda: len(self.events) >= count, timeout)

    def wait_closed(self, timeout: float = ARRIVAL_WAIT) -> bool:
        deadline = time.monotonic() + timeout
        while not self.closed and time.monotonic() < deadline:
            time.sleep(0.005)
        return self.closed


async def _read(http: httpx.AsyncClient, request: httpx.Request, stream: OpenStream,
                *, task_status=anyio.TASK_STATUS_IGNORED) -> None:
    """Send `request`, report its status, then append its SSE events until it ends."""
    with anyio.CancelScope() as scope:
        stream.scope = scope
        try:
            response = await http.send(request, stream=True)
        except httpx.HTTPError as exc:
            stream.error = f"{type(exc).__name__}: {exc}"
            stream.closed = True
            task_status.started(stream)
            return
        try:
            stream.status = response.status_code
            stream.headers = {k.lower(): v for k, v in response.headers.items()}
            if not stream.is_sse:
                raw = await response.aread()
                try:
                    stream.body = httpx.Response(200, content=raw).json() if raw else None
                except ValueError:
                    stream.body = {"raw": raw.decode(errors="replace")}
                stream.closed = True
                task_status.started(stream)
                return
            task_status.started(stream)
            event_id, data = None, []
            async for line in response.aiter_lines():
                if line == "":
                    if event_id is not None or data:
                        stream.events.append(SSE(event_id, "\n".join(data)))
                    event_id, data = None, []
                elif line.startswith("id:"):
                    event_id = line[3:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].lstrip())
            stream.closed = True
        except httpx.HTTPError as exc:
            stream.error = f"{type(exc).__name__}: {exc}"
        finally:
            stream.closed = True
            with anyio.CancelScope(shield=True):
                await response.aclose()


class StreamPool:
    """Opens streams on a portal's event loop and drops them all at the end."""

    def __init__(self, portal) -> None:
        self.portal = portal
        self.http: httpx.AsyncClient = portal.call(self._client)
        self.streams: List[OpenStream] = []

    @staticmethod
    async def _client() -> httpx.AsyncClient:
        return loopback.async_client(timeout=httpx.Timeout(5.0, read=None))

    def open(self, method: str, url: str, headers: Dict[str, str],
             json: Optional[dict] = None) -> OpenStream:
        """Send the request; return once its status is known (its events keep arriving)."""
        request = self.http.build_request(method, url, headers=headers, json=json)
        _, stream = self.portal.start_task(_read, self.http, request, OpenStream())
        self.streams.append(stream)
        return stream

    def drop(self, stream: OpenStream) -> None:
        """Close the connection (the server sees the client go)."""
        if stream.scope is not None and not stream.closed:
            self.portal.call(stream.scope.cancel)
        stream.wait_closed(1.0)
        stream.closed = True

    def close(self) -> None:
        for stream in self.streams:
            if stream.scope is not None:
                self.portal.call(stream.scope.cancel)
        self.portal.call(self.http.aclose)


def headers(session_id: Optional[str], last_event_id: Optional[str] = None,
            get: bool = False) -> Dict[str, str]:
    """The headers of an MCP request on `session_id` (a GET resumption with `last_event_id`)."""
    out = {"accept": "text/event-stream" if get else ACCEPT}
    if not get:
        out["content-type"] = "application/json"
    if session_id is not None:
        out["mcp-session-id"] = session_id
        out["mcp-protocol-version"] = PROTOCOL_VERSION
    if last_event_id is not None:
        out["last-event-id"] = last_event_id
    return out
