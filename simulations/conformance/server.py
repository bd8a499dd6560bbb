"""The server process the harness starts: a real MCP SDK server (MCPServer + the SDK's
StreamableHTTPSessionManager) on a listening socket the harness hands over by file descriptor.

    python -m simulations.conformance.server --fd 5 --incarnation 1 --capacity 3 [--guard]

Its one tool, `stream(tag, count, close_after)`, sends `count` log notifications "tag:1".."tag:n"
on the request's stream, closes the SSE stream after `close_after` of them (SEP-1699 polling:
the events go on being stored), then returns "tag:done". The harness asks
`GET /_harness/stored/<tag>` whether the result has reached the event store, so that it resumes
only once there is nothing left to emit (no timing guesses). With `hold`, the tool waits after
the close until `GET /_harness/release/<hold>`, so the harness can interleave two sessions' calls
at a fixed point.

The differential tester drives a second tool, `stepped(tag, count)`, one message at a time: each
`GET /_harness/step/<tag>` lets it send its next message ("tag:1".."tag:n", then the result
"tag:done") and answers once the event store holds it, so the harness and the model agree on
what exists after every step.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from typing import Dict, Optional, Set

import anyio
from mcp.server.mcpserver import Context, MCPServer

from mcp_resume_guard import ResumptionGuard
from mcp_resume_guard.ids import SCHEMES
from model.policies import NAMED_GATES

from .event_store import BoundedEventStore
from .probe import RELEASE_PREFIX, STEP_LIMIT, STEP_PREFIX, STORE_WAIT, STORED_PREFIX

HOLD_LIMIT = 20.0
#: a tool's label in a stored message: a notification's data "tag:n" or a result's "tag:done"
LABEL = re.compile(r'"(?:data|text)":"([^":]+):(\d+|done)"')


def label_tag(message) -> Optional[str]:
    """The tag of the tool message `message` carries (None: not a tool's message)."""
    if message is None:
        return None
    match = LABEL.search(message.model_dump_json(by_alias=True, exclude_none=True))
    return match.group(1) if match else None


class RecordingStore:
    """Delegates to an event store and remembers which tools' results it has stored."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.results: Set[str] = set()
        self.messages: Counter = Counter()     # tag -> tool messages stored

    async def store_event(self, stream_id, message):
        event_id = await self.inner.store_event(stream_id, message)
        text = message.model_dump_json() if message is not None else ""
        if '"result"' in text and ":done" in text:
            for part in text.split('"'):
                if part.endswith(":done"):
                    self.results.add(part[:-len(":done")])
        tag = label_tag(message)
        if tag is not None:
            self.messages[tag] += 1
        return event_id

    async def replay_events_after(self, last_event_id, send_callback):
        return await self.inner.replay_events_after(last_event_id, send_callback)


class WorkJournal:
    """Each session's tool call, kept beside the shared registry so that a process adopting
    the session can run its work again (the model's recreated generation re-runs its calls)."""

    def __init__(self, registry) -> None:
        self.registry = registry

    async def write(self, tag: str, count: int, first: int, request_id) -> None:
        from mcp_resume_guard.store import CURRENT
        slot = CURRENT.get()
        if slot is None or slot.binding is None or slot.binding.session_id is None:
            return
        await self.registry.client.set(f"mcp:work:{slot.binding.session_id}", json.dumps(
            {"tag": tag, "count": count, "first": first, "request_id": request_id}))

    async def read(self, session_id: str) -> Optional[dict]:
        raw = await self.registry.client.get(f"mcp:work:{session_id}")
        return json.loads(raw) if raw else None


def build_app(capacity: int, retry_ms: int, guard: bool, incarnation: int,
              policy: str = "strict", ids: str = "tagged", keying: str = "session",
              registry_url: str = "", shared_buffers: bool = False):
    """The ASGI app: the SDK's streamable HTTP app (behind ResumptionGuard deciding with
    `policy`, issuing `ids` and looking cursors up by `keying`, if `guard`), plus the harness's
    read-only probe."""
    server = MCPServer("conformance")

    releases: Dict[str, anyio.Event] = {}

    def release(name: str) -> anyio.Event:
        return releases.setdefault(name, anyio.Event())

    @server.tool()
    async def stream(tag: str, count: int, close_after: int, ctx: Context,
                     hold: str = "") -> str:
        """Send `count` notifications, closing the SSE stream after `close_after` of them; with
        `hold`, wait (at most HOLD_LIMIT s) after the close until the harness releases it."""
        for i in range(1, count + 1):
            await ctx.info(f"{tag}:{i}")
            if i == close_after:
                await ctx.close_sse_stream()
                if hold:
                    with anyio.move_on_after(HOLD_LIMIT):
                        await release(hold).wait()
        return f"{tag}:done"

    granted: Counter = Counter()       # tag -> messages the harness has let `stepped` send

    async def granted_at_least(tag: str, n: int) -> bool:
        with anyio.move_on_after(STEP_LIMIT):
            while granted[tag] < n:
                await anyio.sleep(0.002)
            return True
        return False

    detached: Dict[str, anyio.Event] = {}   # tag -> set once a re-run closed its stream

    @server.tool()
    async def stepped(tag: str, count: int, ctx: Context, first: int = 0,
                      rerun: bool = False) -> str:
        """Send "tag:<first+1>".."tag:count", then return "tag:done", each message only when
        the harness grants it (GET /_harness/step/<tag>); give up after STEP_LIMIT s
        unattended. `first`: messages of the work done before this session (a re-initialized
        client's work goes on where its unfinished call began). The call is journaled in the
        shared registry; `rerun`: this process adopted the session and runs its work again, on
        a stream it closes at once (the client's resumed GET is attached to it instead)."""
        if rerun:
            await ctx.close_sse_stream()
            detached.setdefault(tag, anyio.Event()).set()
        elif journal is not None:
            await journal.write(tag, count, first, ctx.request_id)
        for n, i in enumerate(range(first + 1, count + 1), 1):
            if not await granted_at_least(tag, n):
                return f"{tag}:abandoned"
            await ctx.info(f"{tag}:{i}")
        if not await granted_at_least(tag, count - first + 1):
            return f"{tag}:abandoned"
        return f"{tag}:done"

    async def step(tag: str) -> Optional[int]:
        """Grant `tag`'s next message and wait until the store holds it."""
        granted[tag] += 1
        with anyio.move_on_after(STORE_WAIT):
            while store.messages[tag] < granted[tag]:
                await anyio.sleep(0.002)
            return store.messages[tag]
        return None

    # Behind the guard, the example-style store is the deployment's own store the guard wraps.
    shared = None
    if registry_url:
        from mcp_resume_guard import RedisRegistry
        shared = RedisRegistry(registry_url)
    journal = WorkJournal(shared) if shared is not None else None
    buffers = None
    if shared_buffers and registry_url:
        from mcp_resume_guard import SharedBuffers
        buffers = SharedBuffers(registry_url, capacity)
    the_guard = ResumptionGuard(gate=policy, capacity=capacity, incarnation=incarnation,
                                inner_store=BoundedEventStore(capacity + 1), ids=ids,
                                keying=keying, registry=shared,
                                shared_buffers=buffers) if guard else None
    store = RecordingStore(the_guard.event_store if the_guard else BoundedEventStore(capacity))
    app = server.streamable_http_app(event_store=store, retry_interval=retry_ms,
                                     session_idle_timeout=None)

    async def rerun(session_id: str, binding) -> Optional[str]:
        """The adopted session's in-flight work, run again here: the journaled `stepped` call,
        injected into the recreated SDK session; returns the stream it runs on."""
        from mcp_resume_guard.adopt import exchange
        work = await journal.read(session_id) if journal is not None else None
        if work is None:
            return None
        transport = server.session_manager._server_instances[session_id]
        call = {"jsonrpc": "2.0", "id": work["request_id"], "method": "tools/call", "params": {
            "name": "stepped", "arguments": {"tag": work["tag"], "count": work["count"],
                                             "first": work["first"], "rerun": True}}}
        ready = detached.setdefault(work["tag"], anyio.Event())
        server.session_manager._task_group.start_soon(exchange, transport.handle_request, call,
                                                      session_id)
        with anyio.fail_after(STEP_LIMIT):
            await ready.wait()
        return str(work["request_id"])
    if the_guard is not None and shared is not None:
        the_guard.enable_adoption(server.session_manager, rerun)
    if the_guard is not None:
        app = the_guard.wrap(app)

    async def harness_app(scope, receive, send):
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path.startswith((STORED_PREFIX, RELEASE_PREFIX, STEP_PREFIX)):
            status = 200
            if path.startswith(RELEASE_PREFIX):
                release(path[len(RELEASE_PREFIX):]).set()
                body = b'{"released": true}'
            elif path.startswith(STEP_PREFIX):
                stored = await step(path[len(STEP_PREFIX):])
                status = 200 if stored is not None else 504
                body = json.dumps({"stored": stored}).encode()
            else:
                body = json.dumps({"stored": path[len(STORED_PREFIX):] in store.results}).encode()
            await send({"type": "http.response.start", "status": status,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": body})
            return
        await app(scope, receive, send)

    return harness_app


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m simulations.conformance.server",
                                     description="An MCP SDK server for the conformance harness.")
    parser.add_argument("--fd", type=int, required=True, help="listening socket to serve on")
    parser.add_argument("--incarnation", type=int, default=1, help="process incarnation")
    parser.add_argument("--capacity", type=int, default=64, help="events kept per stream")
    parser.add_argument("--retry-ms", type=int, default=200, help="SSE retry field (ms)")
    parser.add_argument("--guard", action="store_true", help="put ResumptionGuard in front")
    parser.add_argument("--policy", default="strict", choices=sorted(NAMED_GATES),
                        help="the guard's gate (default strict)")
    parser.add_argument("--ids", default="tagged", choices=SCHEMES,
                        help="the guard's event-id scheme (default tagged)")
    parser.add_argument("--keying", default="session", choices=("session", "event_id"),
                        help="where the guard looks a cursor up (default session)")
    parser.add_argument("--registry", default="", metavar="URL",
                        help="the fleet's shared session registry (redis://...): the guard "
                             "adopts sessions it finds there (default: per process)")
    parser.add_argument("--shared-buffers", action="store_true",
                        help="keep replay buffers in the registry's Redis, shared by the fleet")
    args = parser.parse_args(argv)
    if args.shared_buffers and not args.registry:
        parser.error("--shared-buffers needs --registry")
    serve_on_fd(build_app(args.capacity, args.retry_ms, args.guard, args.incarnation,
                          args.policy, args.ids, args.keying, args.registry,
                          args.shared_buffers), args.fd)
    return 0


def serve_on_fd(app, fd: int) -> None:
    """Serve `app` under uvicorn on the listening socket handed over as `fd` (so a restarted
    process gets the same port), with a 1 s graceful shutdown on SIGTERM."""
    import uvicorn
    config = uvicorn.Config(app, fd=fd, log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=1)
    uvicorn.Server(config).run()


if __name__ == "__main__":
    sys.exit(main())
