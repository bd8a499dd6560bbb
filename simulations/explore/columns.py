"""A growing column of integers, compact at rest and cheap to append to.

The search keeps one entry per state or per fair edge in typed arrays (8 bytes or fewer each).
Appending to an `array` one value at a time costs a method lookup and a format-string parse
per value; from the compiled search that was about 6% of all the work. An `IntColumn` appends
to a short Python list instead and moves it into the typed array in bulk every `CHUNK` values,
so at most `CHUNK` values are ever held as Python ints. The bulk move packs the values with
`struct` in the array's own machine layout: about 10 ns a value, against 33 through a numpy
array (which first works out a type for the list). Reads and writes see
both parts: the column behaves as one list of the values appended, in order.
"""
from __future__ import annotations

import struct
from array import array
from typing import Any, Iterator, List

import numpy as np

#: values held as Python ints before they move into the typed array
CHUNK = 4096


class IntColumn:
    """A list of integers of the array type code `typecode` ("q", "l", "i", "b"): values
    [0, packed_len) live in `packed`, values [packed_len, len) in `tail`."""

    def __init__(self, typecode: str, chunk: int = CHUNK) -> None:
        if chunk < 1:
            raise ValueError(f"chunk must be at least 1, not {chunk}")
        self.packed = array(typecode)
        self.dtype: Any = np.dtype(typecode)
        self.tail: List[int] = []
        self.packed_len = 0
        self.chunk = chunk

    def append(self, value: int) -> None:
        tail = self.tail
        tail.append(value)
        if len(tail) >= self.chunk:
            self.pack()

    def pack(self) -> None:
        """Move the tail into the typed array (a value out of the type's range raises
        OverflowError, as the array would)."""
        tail = self.tail
        if tail:
            try:   # native size and order: the layout of the array's items
                raw = struct.pack(f"{len(tail)}{self.packed.typecode}", *tail)
            except struct.error as exc:
                raise OverflowError(f"a value does not fit the column's type "
                                    f"{self.packed.typecode!r}: {exc}") from None
            self.packed.frombytes(raw)
            self.packed_len += len(tail)
            self.tail = []

    def __len__(self) -> int:
        return self.packed_len + len(self.tail)

    def __getitem__(self, index: int) -> int:
        """The value at `index` (0 <= index < len; no negative indices)."""
        k = index - self.packed_len
        if k >= 0:
            return self.tail[k]
        if index < 0:
            raise IndexError(f"IntColumn index {index} is negative")
        value: int = self.packed[index]
        return value

    def __setitem__(self, index: int, value: int) -> None:
        k = index - self.packed_len
        if k >= 0:
            self.tail[k] = value
        elif index < 0:
            raise IndexError(f"IntColumn index {index} is negative")
        else:
            self.packed[index] = value

    def __iter__(self) -> Iterator[int]:
        return iter(self.values().tolist())

    def values(self) -> Any:
        """Every value as a numpy array over the packed storage (packs the tail first; the
        view is valid until the next append)."""
        self.pack()
        if not self.packed_len:
            return np.zeros(0, dtype=self.dtype)
        return np.frombuffer(self.packed, dtype=self.dtype)
