"""Serving a session this process does not hold: the SDK side of adoption.

With a registry shared by the fleet, a process can find a session in the registry that it does
not hold (it was created elsewhere, or before a restart). If the gate admits a request for it,
the guard adopts it as a new generation (as the model's `Recreated`): this module gives the
SDK's session manager a transport under the session's id, starts its server task and exchanges
the initialize handshake with it (the client did that with the previous holder), so the SDK
serves the session's next requests as its own.

It uses the session manager's private bookkeeping (`_server_instances`, `_serve_opening_request`)
of the pinned MCP Python SDK (`mcp` 2.3.0); the fleet drills (`tests/test_fleet.py`) break if
those move.
"""
from __future__ import annotations

import json
from typing import Awaitable, Callable, Optional

import anyio

PROTOCOL_VERSION = "2025-11-25"
#: the Host of a synthetic request unless the caller passes the client's (the SDK's DNS
#: rebinding protection accepts loopback hosts with a port)
LOOPBACK = b"127.0.0.1:80"
ASGIApp = Callable[..., Awaitable[None]]


def synthetic_post(body: dict, session_id: Optional[str], path: str = "/mcp",
                   host: bytes = LOOPBACK):
    """(scope, receive) of a POST of `body` to `path`, as a client on loopback would send it."""
    raw = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"),
               (b"accept", b"application/json, text/event-stream"),
               (b"host", host), (b"mcp-protocol-version", PROTOCOL_VERSION.encode())]
    if session_id is not None:
        headers.append((b"mcp-session-id", session_id.encode()))
    scope = {"type": "http", "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "headers": headers,
             "client": ("127.0.0.1", 0), "server": ("127.0.0.1", 0), "root_path": ""}
    delivered = False

    async def receive():
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": raw, "more_body": False}
        await anyio.sleep_forever()
    return scope, receive


async def exchange(app: ASGIApp, body: dict, session_id: Optional[str],
                   host: bytes = LOOPBACK) -> int:
    """POST `body` to the ASGI callable `app`; the response's status (its body is dropped)."""
    scope, receive = synthetic_post(body, session_id, host=host)
    status = []

    async def send(message) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])
    await app(scope, receive, send)
    return status[0] if status else 0


async def recreate_sdk_session(manager, session_id: str, host: bytes = LOOPBACK) -> None:
    """Have `manager` (a StreamableHTTPSessionManager) serve `session_id` as a new session
    (`host`: the Host the client's requests carry): RuntimeError if the SDK refuses the
    handshake."""
    from mcp.server.streamable_http import StreamableHTTPServerTransport
    stale = manager._server_instances.get(session_id)
    if stale is not None and not stale.is_terminated:   # an older generation held here
        with anyio.CancelScope(shield=True):
            await stale.terminate()
    transport = StreamableHTTPServerTransport(
        mcp_session_id=session_id, is_json_response_enabled=manager.json_response,
        event_store=manager.event_store, security_settings=manager.security_settings,
        retry_interval=manager.retry_interval, idle_timeout=manager.session_idle_timeout)
    manager._server_instances[session_id] = transport

    async def opening(scope, receive, send) -> None:
        await manager._serve_opening_request(transport, scope, receive, send)
    status = await exchange(opening, {
        "jsonrpc": "2.0", "id": "adopt", "method": "initialize", "params": {
            "protocolVersion": PROTOCOL_VERSION, "capabilities": {},
            "clientInfo": {"name": "adopted", "version": "1"}}}, None, host)
    if status != 200:
        raise RuntimeError(f"the SDK refused to recreate session {session_id}: {status}")
    status = await exchange(transport.handle_request, {
        "jsonrpc": "2.0", "method": "notifications/initialized"}, session_id, host)
    if status >= 300:
        raise RuntimeError(f"the SDK refused the recreated session's initialized: {status}")
