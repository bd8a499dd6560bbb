"""What a case's result is, in terms both the model and a real run can produce.

An Outcome is the answer to the case's (first) resumption: HTTP status, structured code and what
the stream did, plus, when the SDK's own client drove the case, where that client ended up.
The comparison is field by field; the table shows every field of both sides.
"""
from __future__ import annotations

from typing import Dict, List, NamedTuple, Optional

#: Stream effects (model.protocol.Effect values) a real answer is classified into.
REPLAY, EMPTY, EMPTY_CLOSE, FOREIGN, REJECTED = "replay", "empty", "empty_close", "foreign", \
    "rejected"
FROM_HEAD, GAP = "from_head", "gap"
#: the JSON-RPC method of the guard's gap notice (mcp_resume_guard.store.gap_notice)
GAP_NOTICE = "notifications/resumption_gap"
#: What the SDK client did in the end ("-": the case drove raw HTTP, no client logic ran).
COMPLETED, GAVE_UP, STALLED, REINITIALIZED, NO_CLIENT = "completed", "gave_up", "stalled", \
    "reinitialized", "-"
#: The MCP SDK answers every request for a session its process does not hold with 404 and a
#: JSON-RPC error "Session not found"; it has no other 404. That is the model's session_not_found.
SDK_SESSION_NOT_FOUND = "Session not found"


class Outcome(NamedTuple):
    status: int
    code: str        # model.protocol.Code value; "ok" when admitted
    stream: str      # model.protocol.Effect value
    client: str      # COMPLETED / GAVE_UP / STALLED / REINITIALIZED, or NO_CLIENT

    def differences(self, other: "Outcome") -> List[str]:
        return [f"{name}: model {mine!r}, real {theirs!r}"
                for name, mine, theirs in zip(self._fields, self, other) if mine != theirs]

    def as_dict(self) -> Dict[str, object]:
        return dict(self._asdict())


def code_of_refusal(status: int, body: Optional[dict]) -> str:
    """The structured code of a non-200 answer: the guard's `error.data.code`, or the SDK's
    404 "Session not found" read as session_not_found; anything else is reported as is."""
    error = (body or {}).get("error") or {}
    data = error.get("data")
    if isinstance(data, dict) and isinstance(data.get("code"), str):
        return data["code"]
    if status == 404 and error.get("message") == SDK_SESSION_NOT_FOUND:
        return "session_not_found"
    return f"unstructured {status}: {error.get('message', '')}".strip()


def classify_stream(labels: List[str], own_tag: str, expected: List[str], closed: bool,
                    retained: Optional[List[str]] = None, gap: bool = False) -> str:
    """What a 200 resumption stream did, from the tool labels it carried: another session's
    events (FOREIGN), exactly the continuation after the cursor (REPLAY), a gap notice and then
    every event the server retains (GAP), every retained event although the cursor asked for
    less (FROM_HEAD), nothing and closed (EMPTY_CLOSE), nothing and left open (EMPTY); any
    other mix is named as it is. `retained`: the own stream's labels the server still holds."""
    if any(not label.startswith(own_tag + ":") for label in labels):
        return FOREIGN
    if gap:
        return GAP if labels == retained else f"gap, then {labels} (retained {retained})"
    if labels == expected and labels:
        return REPLAY
    if labels and labels == retained:
        return FROM_HEAD
    if not labels:
        return EMPTY_CLOSE if closed else EMPTY
    return f"replay of {labels} (expected {expected})"
