"""The event ids a guard issues, by scheme (the model's `event_ids`, on the wire).

- tagged (the default, and the only one to deploy): `<session key>-<incarnation>-<stream>-<seq>`;
  any process can read the session and generation off it;
- per_session: a counter of the session's live state ("1", "2", ...), which restarts with the
  session and every new generation of it: ids are reused by every session;
- global: one counter per process (or, with buffers shared by the fleet, one for the fleet):
  ids of different sessions interleave, and a per-process counter is reused by another process
  or the next incarnation;
- uuid: opaque and unique; no order, provenance only by lookup.

The weak schemes exist so a real server can be put in the incidents' deployments (the fleet
drills); what each can prove about its issuer is `guarantee` (model.observe.id_guarantee).
"""
from __future__ import annotations

from typing import NamedTuple, Optional

from model.view import IDS_PER_PROCESS, IDS_PER_SESSION, IDS_TAGGED, IDS_UNIQUE

SCHEMES = ("tagged", "per_session", "global", "uuid")


class TaggedId(NamedTuple):
    """`<session key>-<incarnation>-<stream number>-<sequence>`, all but the key decimal."""
    key: str
    incarnation: int
    stream: int
    seq: int

    def __str__(self) -> str:
        return f"{self.key}-{self.incarnation}-{self.stream}-{self.seq}"

    @staticmethod
    def parse(text: str) -> Optional["TaggedId"]:
        """The id's parts, or None when `text` is not an id of this format."""
        parts = text.split("-")
        if len(parts) != 4 or not all(parts) or not all(p.isdigit() for p in parts[1:]):
            return None
        return TaggedId(parts[0], int(parts[1]), int(parts[2]), int(parts[3]))


def order(scheme: str, wire: Optional[str]) -> Optional[int]:
    """The number a range check compares (model.event_ids.order_key): a tagged id's sequence
    number, a counter's value; None for a uuid or an id that is not of the scheme."""
    if wire is None:
        return None
    if scheme == "tagged":
        tagged = TaggedId.parse(wire)
        return tagged.seq if tagged is not None else None
    if scheme in ("per_session", "global"):
        return int(wire) if wire.isdigit() else None
    return None


def guarantee(scheme: str, shared_buffers: bool = False) -> str:
    """What ids of `scheme` prove about their issuer: a global counter kept beside buffers the
    fleet shares is unique; one per process is reused by other processes and incarnations."""
    if scheme == "global" and shared_buffers:
        return IDS_UNIQUE
    return {"tagged": IDS_TAGGED, "uuid": IDS_UNIQUE, "global": IDS_PER_PROCESS,
            "per_session": IDS_PER_SESSION}[scheme]
