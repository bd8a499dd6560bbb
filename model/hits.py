"""What a property's check sees in one event (`Hit`), what an event counts for a property
(`Finding`), and the check of a situation or a cost (`EventCheck`): the values the property
registry (`model.properties`) and every engine's bookkeeping pass around.
"""
from __future__ import annotations

from typing import Any, Callable, Final, Optional, Tuple

from .record import UNHASHED, Record


class Hit(Record):
    """What a check saw in one event: how many, why (the cause) and a line for narratives."""

    __slots__ = ("count", "cause", "detail")
    _fields = ("count", "cause", "detail")
    count: Final[int]
    cause: Final[str]
    detail: Final[str]

    def __init__(self, count: int, cause: str, detail: str) -> None:
        self.count = count
        self.cause = cause
        self.detail = detail
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.count, self.cause, self.detail)


class Finding(Record):
    """What one event counted for one property (`name` "note" for remarks that count nothing)."""

    __slots__ = ("name", "count", "detail", "cause")
    _fields = ("name", "count", "detail", "cause")
    name: Final[str]
    count: Final[int]
    detail: Final[str]
    cause: Final[str]

    def __init__(self, name: str, count: int, detail: str, cause: str = "") -> None:
        self.name = name
        self.count = count
        self.detail = detail
        self.cause = cause
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.name, self.count, self.detail, self.cause)


class EventCheck:
    """A situation's or a cost's check: Hit(1, cause(event), detail) for each event `predicate`
    holds of (a situation's cause is always "": its one Hit is kept). `hits_of` calls `run`
    directly: compiled, a native call, where calling the object is a generic one."""

    def __init__(self, predicate: Callable[[Any], bool], cause: Optional[Callable[[Any], str]],
                 detail: str) -> None:
        self.predicate = predicate
        self.cause = cause
        self.detail = detail
        self.hit = Hit(1, "", detail)

    def __call__(self, e: object) -> Optional[Hit]:
        return self.run(e)

    def run(self, e: object) -> Optional[Hit]:
        if not self.predicate(e):
            return None
        cause = self.cause
        return self.hit if cause is None else Hit(1, cause(e), self.detail)
