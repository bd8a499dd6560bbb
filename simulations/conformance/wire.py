"""Raw HTTP + SSE against a real server, every header under the harness's control.

Every request has a connect and read timeout, and every stream read stops after a bounded number
of events or a quiet period; nothing here can wait forever.
"""
from __future__ import annotations

import json
import time
from typing import Callable, Dict, List, NamedTuple, Optional

import httpx

from . import loopback
from .outcome import GAP_NOTICE
from .probe import RELEASE_PREFIX, STORED_PREFIX

PROTOCOL_VERSION = "2025-11-25"
ACCEPT = "application/json, text/event-stream"
QUIET = 1.5            # seconds of silence after which an open stream is reported as silent
MAX_EVENTS = 200


class SSE(NamedTuple):
    id: Optional[str]
    data: str

    @property
    def label(self) -> Optional[str]:
        """"tag:n" for a tool's notification, "tag:done" for its result, None otherwise."""
        if not self.data:
            return None
        try:
            message = json.loads(self.data)
        except ValueError:
            return None
        params = message.get("params") or {}
        if isinstance(params.get("data"), str):
            return params["data"]
        for item in (message.get("result") or {}).get("content") or ():
            if isinstance(item, dict) and str(item.get("text", "")).endswith(":done"):
                return item["text"]
        return None


    @property
    def method(self) -> Optional[str]:
        """The JSON-RPC method of a notification or request it carries (None otherwise)."""
        try:
            message = json.loads(self.data) if self.data else None
        except ValueError:
            return None
        return message.get("method") if isinstance(message, dict) else None


class Answer(NamedTuple):
    """What one request got: status, headers, the SSE events (for a stream) or the JSON body."""
    status: int
    headers: Dict[str, str]
    events: List[SSE]
    body: Optional[dict]
    closed: bool           # the server ended the stream (False: still open after QUIET)

    @property
    def labels(self) -> List[str]:
        return [e.label for e in self.events if e.label is not None]

    @property
    def gap(self) -> bool:
        """The stream's first data event is a gap notice (outcome.GAP_NOTICE)."""
        first = next((e for e in self.events if e.data), None)
        return first is not None and first.method == GAP_NOTICE

    @property
    def error_code(self) -> Optional[str]:
        """The structured code of a refusal (`error.data.code`), if the body has one."""
        data = ((self.body or {}).get("error") or {}).get("data")
        return data.get("code") if isinstance(data, dict) else None

    @property
    def upstream(self) -> str:
        """The upstream that answered, when nginx was in the path."""
        return self.headers.get("x-upstream", "").split(",")[-1].strip()


def _read(response: httpx.Response, until_label: Optional[str], quiet: float) -> Answer:
    headers = {k.lower(): v for k, v in response.headers.items()}
    if not headers.get("content-type", "").startswith("text/event-stream"):
        raw = response.read()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = {"raw": raw.decode(errors="replace")}
        return Answer(response.status_code, headers, [], body, True)
    events: List[SSE] = []
    event_id, data, closed = None, [], False
    try:
        for line in response.iter_lines():
            if line == "":
                if event_id is not None or data:
                    events.append(SSE(event_id, "\n".join(data)))
                    if until_label is not None and events[-1].label == until_label:
                        break
                    if len(events) >= MAX_EVENTS:
                        break
                event_id, data = None, []
            elif line.startswith("id:"):
                event_id = line[3:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip())
        else:
            closed = True
    except httpx.ReadTimeout:
        closed = False
    return Answer(response.status_code, headers, events, None, closed)


class WireClient:
    """One raw client: it never re-initializes or retries on its own."""

    def __init__(self, base_url: str, quiet: float = QUIET,
                 route: Optional[Callable[[], str]] = None) -> None:
        self.base = base_url.rstrip("/") + "/mcp"
        self.quiet = quiet
        self.route = route      # called before each request: the base URL to send it to (a
        #                         load balancer lined up for it), instead of base_url
        self.http = loopback.client(timeout=httpx.Timeout(5.0, read=quiet))
        self.session_id: Optional[str] = None
        self.answered: List[Dict[str, str]] = []   # each answer's headers, in order

    def _url(self) -> str:
        return self.base if self.route is None else self.route().rstrip("/") + "/mcp"

    def close(self) -> None:
        self.http.close()

    def _headers(self, extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
        headers = {"accept": ACCEPT, "content-type": "application/json"}
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
            headers["mcp-protocol-version"] = PROTOCOL_VERSION
        headers.update(extra or {})
        return headers

    def post(self, message: dict, until_label: Optional[str] = None) -> Answer:
        with self.http.stream("POST", self._url(), json=message, headers=self._headers()) as r:
            answer = _read(r, until_label, self.quiet)
        self.answered.append(answer.headers)
        return answer

    def initialize(self) -> Answer:
        """initialize + notifications/initialized; sets `session_id` from the answer."""
        answer = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL_VERSION, "capabilities": {},
            "clientInfo": {"name": "conformance-harness", "version": "1"}}})
        if answer.status != 200 or "mcp-session-id" not in answer.headers:
            raise RuntimeError(f"initialize failed: {answer.status} {answer.body}")
        self.session_id = answer.headers["mcp-session-id"]
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def call_stream(self, request_id: int, tag: str, count: int, close_after: int,
                    hold: str = "") -> Answer:
        """tools/call `stream`; returns what arrived before the server closed the stream."""
        arguments = {"tag": tag, "count": count, "close_after": close_after}
        if hold:
            arguments["hold"] = hold
        return self.post({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {
            "name": "stream", "arguments": arguments}}, until_label=f"{tag}:done")

    def resume(self, last_event_id: Optional[str], until_label: Optional[str] = None,
               session_id: Optional[str] = None) -> Answer:
        """GET with Mcp-Session-Id and Last-Event-ID (as given, nothing checked)."""
        extra = {"accept": "text/event-stream"}
        if last_event_id is not None:
            extra["last-event-id"] = last_event_id
        if session_id is not None:
            extra["mcp-session-id"] = session_id
        headers = self._headers(extra)
        headers.pop("content-type", None)
        with self.http.stream("GET", self._url(), headers=headers) as r:
            answer = _read(r, until_label, self.quiet)
        self.answered.append(answer.headers)
        return answer


def release(server_url: str, name: str) -> None:
    """Let a tool call waiting on `hold=name` finish."""
    loopback.get(f"{server_url}{RELEASE_PREFIX}{name}", timeout=2.0).raise_for_status()


def wait_stored(server_url: str, tag: str, timeout: float = 10.0) -> None:
    """Wait until the server's event store holds the result of the call tagged `tag`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        reply = loopback.get(f"{server_url}{STORED_PREFIX}{tag}", timeout=2.0).json()
        if reply.get("stored"):
            return
        time.sleep(0.02)
    raise RuntimeError(f"the result of {tag!r} never reached the event store in {timeout:.0f} s")
