"""What a search concludes about one property: holds, violated (with its shortest witness, and
the shortest per cause) or unknown (why). Shared by the breadth-first search and the liveness
check, which both produce them."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

HOLDS, VIOLATED, UNKNOWN = "holds", "violated", "unknown"
VERDICTS = (HOLDS, VIOLATED, UNKNOWN)


@dataclass
class Finding:
    """The first (shortest) witness of a property violation, a cost or a gate error."""
    name: str
    detail: str
    actions: List            # the path from the initial state, last action included
    source: int = 0          # fingerprint of the state the last action was taken in
    cause: str = ""


@dataclass
class Verdict:
    """One property's verdict: holds, violated (with its shortest trace) or unknown (why)."""
    name: str
    verdict: str
    finding: Optional[Finding] = None
    why: str = ""
    causes: Dict[str, Finding] = field(default_factory=dict)

    @property
    def trace_length(self) -> Optional[int]:
        return len(self.finding.actions) if self.finding is not None else None
