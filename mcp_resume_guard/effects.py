"""What an admitted resumption does on the guard's streams: each effect of `model.protocol.Effect`
as a plan the store's replay carries out, so a real server behind the guard does what the model
says the gate's decision does.

Invariant: a plan replays only retained events of one stream, in sequence order, and attaches
the GET to that stream (live events follow), to a stream nothing writes to (open and silent),
or to nothing (the SDK ends the response at once).
"""
from __future__ import annotations

import secrets
from typing import NamedTuple, Optional

from model.protocol import Effect

from .ids import TaggedId
from .store import Binding, SessionBook, StreamRecord


class Plan(NamedTuple):
    stream: Optional[StreamRecord]   # the stream to replay from and attach the GET to
    after: Optional[int]             # replay its retained events above this sequence number
    #                                  (None: replay nothing, only attach)
    gap: bool = False                # first a gap event naming the stream's floor
    no_stream: bool = False          # no stream at all: the SDK answers 200 and ends it
    attach_to: Optional[str] = None  # without `stream`: the id of a stream nothing writes to


NO_STREAM = Plan(None, None, no_stream=True)


def detached() -> Plan:
    """Held open on a stream id no event is ever stored under."""
    return Plan(None, None, attach_to=f"detached-{secrets.token_hex(6)}")


def plan(effect: Effect, book: SessionBook, binding: Optional[Binding],
         wire: Optional[str]) -> Plan:
    """The plan for `effect` on a GET of `binding`'s session with cursor `wire`. S's buffer is
    `binding.own_stream(wire)`, as in the view the gate decided on; a FOREIGN replay follows
    the deployment's lookup into whichever stream holds the cursor."""
    if effect is Effect.EMPTY_CLOSE:
        return NO_STREAM
    if effect is Effect.DETACHED:
        return detached()
    if effect is Effect.FOREIGN:      # after E in whichever stream the lookup finds it
        found = book.lookup(binding, wire)
        if found is None and book.scheme == "tagged" and wire is not None:
            tagged = TaggedId.parse(wire)
            stream = book.locate(tagged) if tagged is not None else None
            return Plan(stream, tagged.seq) if stream is not None and tagged else detached()
        return Plan(found[1], found[2].seq) if found is not None else detached()
    own = binding.own_stream(wire) if binding is not None else None
    if own is None:                   # S has no stream here: nothing can ever arrive
        return detached()
    if effect is Effect.REPLAY:       # after E's position in S's stream
        return Plan(own, own.after(book.scheme, wire))
    if effect is Effect.FROM_HEAD:
        return Plan(own, 0)
    if effect is Effect.GAP:
        return Plan(own, own.floor.seq if own.floor is not None else 0, gap=True)
    return Plan(own, None)            # EMPTY, CLAMPED: nothing replayed, live from here
