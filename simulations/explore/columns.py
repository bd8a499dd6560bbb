"""A growing column of integers, compact at rest and cheap to append to.

The search keeps one entry per state or per fair edge in typed arrays (8 bytes or fewer each).
Appending to an `array` one value at a time costs a method lookup and a format-string parse
per value; from the compiled search that was about 6% of all the work. An `IntColumn` appends
to a short Python list instead and moves it into the typed array in bulk (through numpy) every
`CHUNK` values, so at most `CHUNK` values are ever held as Python ints. Reads and writes see
both parts: the column behaves as one list of the values appended, in order.
"""
from __future__ import annotations

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
        if self.tail:
            self.packed.frombytes(np.array(self.tail, dtype=self.dtype).tobytes())
            self.packed_len += len(self.tail)
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
