"""The stateless cases' wire: a raw MCP client at protocol 2026-07-28 (no session: every call a
POST of its own, the response streamed on it), whose streams the harness reads as it likes.

Every request has a connect and read timeout; nothing here waits forever. Invariant: a
re-issue is the same call (tag) under the next request id, as the model's client re-issues.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional

import httpx

from . import loopback
from .probe import HarnessError

PROTOCOL_VERSION = "2026-07-28"
READ_TIMEOUT = 10.0      # a stream silent this long is reported as such, never waited on more


@dataclass
class Post:
    """One tools/call POST at 2026-07-28 whose response stream the harness reads as it likes:
    up to a label, to its end, closed early (a break the server can see), or left unread and
    open (half-open: the server cannot see it)."""
    tag: str
    request_id: str
    response: httpx.Response
    labels: List[str] = field(default_factory=list)   # progress messages, then "tag:done"
    ended: str = ""     # "result", "error: ...", "broken (...)", "closed by the client", "silent"
    _iter: Optional[Iterator[str]] = field(default=None, repr=False)

    @property
    def upstream(self) -> str:
        return self.response.headers.get("x-upstream", "").split(",")[-1].strip()

    def read_until(self, label: Optional[str] = None) -> bool:
        """Read events until `label` (None: the result) arrives or the stream ends."""
        if self.ended:
            return False
        lines = self._lines()
        data: List[str] = []
        try:
            for line in lines:
                if line.startswith("data:"):
                    data.append(line[5:].strip())
                elif line == "" and data:
                    got = _label(json.loads("\n".join(data)))
                    data = []
                    if got is not None and got.startswith("error: "):
                        self.ended = got          # a JSON-RPC error ends the exchange
                        return False
                    if got is not None:
                        self.labels.append(got)
                    if got is not None and got.endswith(":done"):
                        self.ended = "result"
                        return label is None or got == label
                    if label is not None and got == label:
                        return True
            self.ended = "broken (the stream ended without the result)"
        except httpx.ReadTimeout:
            self.ended = "silent"
        except (httpx.RemoteProtocolError, httpx.ReadError) as exc:
            self.ended = f"broken ({type(exc).__name__})"
        return False

    def _lines(self) -> Iterator[str]:
        if self._iter is None:
            if not self.response.headers.get("content-type", "").startswith("text/event-stream"):
                body = self.response.read().decode(errors="replace")
                self._iter = iter([f"data: {body}", ""])
            else:
                self._iter = self.response.iter_lines()
        return self._iter

    def close(self) -> None:
        """Close the connection (an unread response's connection is not reused)."""
        if not self.ended:
            self.ended = "closed by the client"
        self.response.close()


def _label(message: Dict) -> Optional[str]:
    if message.get("method") == "notifications/progress":
        return (message.get("params") or {}).get("message")
    if "result" in message:
        content = message["result"].get("content") or [{}]
        return content[0].get("text")
    if "error" in message:
        return f"error: {message['error'].get('message')}"
    return None


class StatelessClient:
    """A 2026-07-28 client with no session: every call is a POST of its own, numbered from 1;
    a re-issue is the same call under the next request id."""

    def __init__(self, base_url: str) -> None:
        self.url = base_url.rstrip("/") + "/mcp"
        self.http = loopback.client(timeout=httpx.Timeout(5.0, read=READ_TIMEOUT))
        self.posts: List[Post] = []

    def call(self, tag: str, progress: int = 2, pause_after: int = 0,
             pause_result: bool = False) -> Post:
        request_id = len(self.posts) + 1
        arguments = {"tag": tag, "progress": progress, "pause_after": pause_after,
                     "pause_result": pause_result, "hold": hold_name(tag, request_id)}
        body = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {
            "name": "work", "arguments": arguments, "_meta": {
                "progressToken": f"p{request_id}",
                "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "conformance-harness",
                                                       "version": "1"}}}}
        headers = {"accept": "application/json, text/event-stream",
                   "content-type": "application/json", "mcp-protocol-version": PROTOCOL_VERSION,
                   "mcp-method": "tools/call", "mcp-name": "work"}
        request = self.http.build_request("POST", self.url, json=body, headers=headers)
        try:
            response = self.http.send(request, stream=True)
        except httpx.HTTPError as exc:
            raise HarnessError(f"POST {tag} (id {request_id}) failed: {exc}") from exc
        if "mcp-session-id" in response.headers:
            raise HarnessError("the server answered a 2026-07-28 request with a session id")
        post = Post(tag, str(request_id), response)
        self.posts.append(post)
        return post

    def close(self) -> None:
        for post in self.posts:
            post.response.close()
        self.http.close()


def hold_name(tag: str, request_id: int) -> str:
    return f"{tag}.{request_id}"
