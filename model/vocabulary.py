"""The model's closed vocabularies: a client's phase, an instance's status, how a stream was
opened and how an event reached a client.

Literal types, not Enum classes: mypy checks every value the model assigns or compares against
them (the compile step runs it with --strict-equality), and a value stays a plain string, so
states hash, compare and serialize as strings and the compiled model pays nothing for the names.
"""
from __future__ import annotations

from typing import Literal, Tuple, get_args

#: a client's phase: before its first initialize (or request); owed a (re-)initialize (on a
#: stateless transport: a re-issue of its unfinished calls); holding a session
#: without a stream; with an open stream; given up (an SDK client raising); left (open systems)
Phase = Literal["new", "needs_init", "idle", "open", "failed", "gone"]
#: an instance's status: serving; draining before a rolling-restart stop; stopped or crashed
Status = Literal["up", "draining", "down"]
#: how a stream was opened: by an initialize request, or by a resumption (GET)
StreamKind = Literal["init", "resume"]
#: how an event reached a client: emitted live, replayed from its session's buffer, replayed
#: from the head of the buffer, replayed from a stream sessions share (`request_id` keying) or
#: from another session's stream, or returned from an execution record (a stateless server that
#: saw the call's idempotency key recorded answers with the recorded result, unexecuted), or
#: returned by a poll from its task's record (tasks transport)
Via = Literal["live", "replay", "head", "shared", "foreign", "recorded", "task"]
PHASES: Tuple[str, ...] = get_args(Phase)
STATUSES: Tuple[str, ...] = get_args(Status)
STREAM_KINDS: Tuple[str, ...] = get_args(StreamKind)
VIAS: Tuple[str, ...] = get_args(Via)
