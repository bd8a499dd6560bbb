"""Named exceptions: deployments where no resumption gate can make a property hold.

An exception excuses a violation only where its deployment predicate matches and only for the
(property, cause) pairs it names, so a violation with any other cause in the same deployment
still counts. Each says why no gate can help (a limitation of the protocol or of the store, not
of the model) and what the deployment must change. The matrix applies them to every gate; a
test keeps each one exercised (an exception nothing needs is stale) and checks that `strict`
violates nothing else anywhere in the space.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Optional, Tuple

from model.policies import STATELESS_ROWS

ANY = "*"


@dataclass(frozen=True)
class NamedException:
    name: str
    applies: Callable[[Dict[str, object]], bool]   # deployment dict -> matches
    excuses: Tuple[Tuple[str, str], ...]           # (property, cause); ANY matches all
    reason: str
    remedy: str

    def excused(self, deployment: Dict[str, object], prop: str, cause: str) -> bool:
        return self.applies(deployment) and any(
            p in (prop, ANY) and c in (cause, ANY) for p, c in self.excuses)


EXCEPTIONS: Tuple[NamedException, ...] = (
    NamedException(
        "request_id_keying",
        lambda d: d["buffer_keying"] == "request_id",
        ((ANY, ANY),),
        "The event store names streams by JSON-RPC request id, as the MCP SDK's example store "
        "does, and every client numbers its requests alike, so sessions share streams: a replay "
        "carries whatever the shared stream holds after the cursor, other sessions' events "
        "included, and the shared buffer's floor and order belong to no session. A gate decides "
        "whether to replay, not what the store replays, so no gate can both resume and keep "
        "sessions apart.",
        "key replay streams by session (as StrictResumptionGuard's store does)"),
    NamedException(
        "no_priming",
        lambda d: d["priming"] is False,
        (("silent_loss", "no_cursor"), ("stall", "no_cursor"), ("stall_liveness", "no_cursor")),
        "Without a priming event (SEP-1699, spec 2025-11-25) a stream lost before its first "
        "event leaves the client without a cursor. Its GET without Last-Event-ID opens a new "
        "stream, and the spec forbids replaying another stream onto it, so what was emitted "
        "meanwhile never arrives and nobody says so: lost silently, or waited for forever.",
        "send a priming event (an id, no data) when a stream opens"),
)


def excused_by(deployment: Dict[str, object], prop: str, cause: str,
               policy: str = "") -> Optional[str]:
    """The name of the exception that excuses this (property, cause) here, or None. Every
    exception is about resumption: a stateless transport's row (`policy`) has none to excuse
    (its cells run the deployment without sessions, buffers or cursors)."""
    if policy in STATELESS_ROWS:
        return None
    for exception in EXCEPTIONS:
        if exception.excused(deployment, prop, cause):
            return exception.name
    return None


def by_name(name: str) -> NamedException:
    return next(e for e in EXCEPTIONS if e.name == name)
