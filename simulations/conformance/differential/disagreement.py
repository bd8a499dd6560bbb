"""A difference between the model and the real servers at some step of a sequence."""
from __future__ import annotations

from typing import Dict, List


class Disagreement(AssertionError):
    """The model and the real servers differ at a step. One subclass per kind, so Hypothesis
    shrinks each kind separately (it tells failures apart by type)."""

    kind = "disagreement"
    _kinds: Dict[str, type] = {}

    def __init__(self, what: str, sequence: List[str]) -> None:
        super().__init__(f"{what}\n  after: " + "; ".join(sequence))
        self.what, self.sequence = what, tuple(sequence)

    @classmethod
    def of(cls, kind: str) -> type:
        if kind not in cls._kinds:
            cls._kinds[kind] = type(f"{kind.title()}Disagreement", (cls,), {"kind": kind})
        return cls._kinds[kind]
