"""The codes and stream effects a gate's decision is made of (`model.protocol.Decision`).

`str` enums, so a value compares equal to its string (`Code.REPLAY_GAP == "replay_gap"`) and
prints as one. This module stays Python when the model is compiled (mypyc does not compile
`str, Enum` classes); `VALUES` gives the compiled model each member's string without the
interpreted `.value` property.
"""
from __future__ import annotations

from enum import Enum
from typing import Dict, Union


class Code(str, Enum):
    """Structured error codes carried in a decision's body."""

    OK = "ok"
    SESSION_NOT_FOUND = "session_not_found"          # liveness failed -> 404, re-initialize
    CURSOR_SESSION_MISMATCH = "cursor_session_mismatch"  # provenance failed -> 400, client bug
    CURSOR_UNVERIFIABLE = "cursor_unverifiable"      # provenance cannot be established -> 409
    GENERATION_MISMATCH = "generation_mismatch"      # session recreated since E -> 409
    REPLAY_GAP = "replay_gap"                        # E below the replay floor -> 409 + earliest
    CURSOR_AHEAD = "cursor_ahead"                    # E above the high-water mark -> 409

    def __str__(self) -> str:  # pragma: no cover - cosmetic
        return self.value


class Effect(str, Enum):
    """What an admitted (200) stream does; `REJECTED` for any non-200 answer."""

    REPLAY = "replay"            # replay (E, hwm] of S's stream, then live
    EMPTY = "empty"              # nothing to replay; wait for live events
    EMPTY_CLOSE = "empty_close"  # 200, no events, then the server closes (MCP Python SDK)
    FROM_HEAD = "from_head"      # replay the whole retained buffer, ignoring E
    CLAMPED = "clamped"          # E treated as the high-water mark: nothing replayed, then live
    GAP = "gap"                  # leading gap event naming the floor, then replay from the floor
    FOREIGN = "foreign"          # replay after E in the stream of another session
    DETACHED = "detached"        # 200, nothing replayed, held open on no stream of S: nothing
    #                              ever arrives (the TypeScript SDK, for a cursor its example
    #                              store does not know)
    REJECTED = "rejected"

    def __str__(self) -> str:  # pragma: no cover - cosmetic
        return self.value


#: member -> its string value, for code that must not pay for `.value`
VALUES: Dict[Union[Code, Effect], str] = {**{c: c.value for c in Code},
                                         **{e: e.value for e in Effect}}
