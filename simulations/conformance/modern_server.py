"""The server process of the stateless cases: a real MCP SDK server (MCPServer), served by the
SDK's streamable HTTP app, which takes every request carrying `MCP-Protocol-Version:
2026-07-28` to its modern (single-exchange) entry: no session, one POST per request, the
response streamed on that POST, the handler cancelled when the POST's connection closes.

    python -m simulations.conformance.modern_server --fd 5 --name A --incarnation 1 \\
        --ledger /tmp/ledger.jsonl

Its one tool, `work(tag, progress, pause_after, pause_result)`, sends `progress` progress
notifications "tag:1".."tag:n", then executes the call (its side effect: a line in the ledger),
then returns "tag:done". With `pause_after` it waits after that many notifications, with
`pause_result` after the side effect and before returning, each until the harness releases it
(`GET /_harness/release/<pause name>`) or HOLD_LIMIT seconds pass.

The ledger is the fleet's shared side-effect store (a JSON-lines file every instance appends
to, so it outlives a restart): one line per `started`, `executed`, `returned` and `cancelled`
of a request, with the tag, the JSON-RPC request id, the instance and its incarnation.
Invariant: a request's `executed` line is written exactly when its side effect happens, and a
request that was cancelled before it has no `executed` line.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Dict

import anyio
from mcp.server.mcpserver import Context, MCPServer

from .probe import RELEASE_PREFIX

HOLD_LIMIT = 20.0
#: the ledger's events for one request, in the order they can happen
LEDGER_EVENTS = ("started", "executed", "returned", "cancelled")


class Ledger:
    """Appends one JSON line per event; each line is one write(2) on an O_APPEND file, so lines
    from several processes never interleave."""

    def __init__(self, path: Path, instance: str, incarnation: int) -> None:
        self.path, self.instance, self.incarnation = Path(path), instance, incarnation

    def write(self, event: str, tag: str, request_id: str) -> None:
        line = json.dumps({"event": event, "tag": tag, "request_id": request_id,
                           "instance": self.instance, "incarnation": self.incarnation})
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)


def build_app(ledger: Ledger):
    """The SDK's streamable HTTP app with the `work` tool, plus the harness's release probe."""
    server = MCPServer("conformance-stateless")
    releases: Dict[str, anyio.Event] = {}

    def release(name: str) -> anyio.Event:
        return releases.setdefault(name, anyio.Event())

    async def pause(name: str) -> None:
        with anyio.move_on_after(HOLD_LIMIT):
            await release(name).wait()

    @server.tool()
    async def work(tag: str, progress: int, ctx: Context, pause_after: int = 0,
                   pause_result: bool = False, hold: str = "") -> str:
        """Send `progress` notifications, execute (the ledger's `executed` line), return
        "tag:done"; pause after notification `pause_after` (0: never) and, with
        `pause_result`, between the side effect and the result, until `hold` is released."""
        request_id = ctx.request_id
        ledger.write("started", tag, request_id)
        try:
            for i in range(1, progress + 1):
                await ctx.report_progress(i, progress + 1, f"{tag}:{i}")
                if i == pause_after:
                    await pause(hold)
            ledger.write("executed", tag, request_id)
            if pause_result:
                await pause(hold)
        except anyio.get_cancelled_exc_class():
            ledger.write("cancelled", tag, request_id)
            raise
        ledger.write("returned", tag, request_id)
        return f"{tag}:done"

    app = server.streamable_http_app(session_idle_timeout=None)

    async def harness_app(scope, receive, send):
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path.startswith(RELEASE_PREFIX):
            release(path[len(RELEASE_PREFIX):]).set()
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": b'{"released": true}'})
            return
        await app(scope, receive, send)

    return harness_app


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m simulations.conformance.modern_server",
        description="An MCP SDK server for the conformance harness's stateless cases.")
    parser.add_argument("--fd", type=int, required=True, help="listening socket to serve on")
    parser.add_argument("--name", required=True, help="the instance's name in the ledger")
    parser.add_argument("--incarnation", type=int, default=1, help="process incarnation")
    parser.add_argument("--ledger", type=Path, required=True,
                        help="the shared side-effect ledger (JSON lines, appended)")
    args = parser.parse_args(argv)
    from .server import serve_on_fd
    serve_on_fd(build_app(Ledger(args.ledger, args.name, args.incarnation)), args.fd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
