"""Event-id schemes: how ids are minted, ordered and decoded.

- per_session: a counter in the session's live state; it restarts when the state is recreated,
  so ids are reused across generations.
- global: one counter where the buffers live (the shared store, or each process; a process's
  counter restarts with the process). Ids of different sessions interleave, so a foreign cursor
  looks plausible.
- tagged: (session, generation, seq); any instance can decode provenance and generation.
- uuid: opaque and unique; no order, provenance only by lookup.
"""
from __future__ import annotations

from typing import Optional, Tuple

from .protocol import WireId


def mint(scheme: str, token: int, generation: int, seq: int, counter: int, serial: int) -> WireId:
    """The wire id for an event. `seq` is the per-session counter value, `counter` the global
    counter value and `serial` a ground-truth serial unique over the whole run."""
    if scheme == "per_session":
        return seq
    if scheme == "global":
        return counter
    if scheme == "tagged":
        return (token, generation, seq)
    return ("uuid", serial)


def order_key(scheme: str, wire: WireId) -> Optional[int]:
    """The number a range check compares, or None where the scheme has no order (uuid).
    Tagged ids compare by sequence number only (a range-only gate ignores the tag)."""
    if scheme == "per_session" or scheme == "global":
        return wire if isinstance(wire, int) else None
    if scheme == "tagged":
        tag = _tag(wire)
        return tag[2] if tag is not None else None
    return None


def _tag(wire: WireId) -> Optional[Tuple[int, int, int]]:
    """(session, generation, seq) of a tagged id; None for any other id."""
    if isinstance(wire, tuple) and len(wire) == 3:
        session, generation, seq = wire
        if isinstance(session, int) and isinstance(generation, int) and isinstance(seq, int):
            return session, generation, seq
    return None


def decode(scheme: str, wire: WireId) -> Tuple[Optional[int], Optional[int]]:
    """(session, generation) readable from the id itself; (None, None) unless tagged."""
    tag = _tag(wire) if scheme == "tagged" else None
    if tag is not None:
        return tag[0], tag[1]
    return None, None


def render(wire: Optional[WireId]) -> str:
    """A short human form of a wire id for narratives."""
    if wire is None:
        return "-"
    if isinstance(wire, tuple) and len(wire) == 3:
        return f"S{wire[0]}.g{wire[1]}.{wire[2]}"
    if isinstance(wire, tuple) and len(wire) == 2:
        return f"u{wire[1]:04d}"
    return f"e{wire}"
