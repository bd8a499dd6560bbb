"""Immutable records: the base of every state value (`model.state`) and action (`model.actions`).

A record is a small class with named fields that behaves like a value: equal to a record of the
same class with equal fields, hashable (the hash is computed once and kept, since a record never
changes), pickled by its fields, shown as `Name(field=value, ...)` and read as a dict with
`_asdict()`. Each subclass lists its
fields in `_fields` and returns them, in that order, from `_key()`; `replace(...)` on a subclass
builds a copy with some fields changed.

Why not NamedTuples or dataclasses: compiled with mypyc, a class like this is a native class,
whose construction, attribute access and `replace` run as C (10 to 30 times faster than a
NamedTuple's `_replace` or a frozen dataclass's constructor, which stay interpreted Python), and
whose cached hash makes hashing a successor state cost only the parts that changed. From source,
the same classes run as plain `__slots__` classes with the same behaviour.

Invariant: a record's fields are assigned only in its `__init__` (declared `Final`, so the
compile step's type check rejects any other assignment); the cached hash relies on it.
"""
from __future__ import annotations

from typing import Any, ClassVar, Dict, Final, Tuple

#: the default of every `replace` argument: "keep this field as it is" (None is a value)
KEEP: Final[Any] = object()
#: `_hash` before the hash is first asked for (hash() never returns -1)
UNHASHED: Final = -1


class Record:
    __slots__ = ("_hash",)
    _fields: ClassVar[Tuple[str, ...]] = ()
    _hash: int

    def _key(self) -> Tuple[Any, ...]:
        """The field values, in `_fields` order."""
        raise NotImplementedError

    def __hash__(self) -> int:
        h = self._hash
        if h == UNHASHED:
            h = self._hash = hash(self._key())
        return h

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not type(self):
            return False   # a record equals only a record of its own class
        assert isinstance(other, Record)
        return self._key() == other._key()

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields, self._key()))
        return f"{type(self).__name__}({shown})"

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), self._key())

    def _asdict(self) -> Dict[str, Any]:
        """{field: value}, in field order (as a NamedTuple's `_asdict`)."""
        return dict(zip(self._fields, self._key()))


def fields_of(record: Record) -> Tuple[Tuple[str, Any], ...]:
    """(name, value) of each field of a record, in order."""
    return tuple(zip(record._fields, record._key()))
