"""Growing columns of integers, compact at rest and cheap to append to and read.

The search keeps one entry per state, per class or per fair edge in columns of 8, 4 or 1 bytes
each: `IntColumn` (signed 64-bit: fingerprints, packed edges), `Int32Column` (signed 32-bit:
node indices and action codes) and `ByteColumn` (0 to 255: flags and small codes). A column is
a `librt.vecs.vec` of its width (librt is mypyc's runtime library): compiled, an append writes
the value into the vector's buffer and a read takes it out, neither making a Python int, where
the `array` with a list for its tail that was here before boxed every value twice (about 90 ns
an append and 80 a read, against 34 and 8). Interpreted, the same vector works through its
Python methods. The buffer grows by doubling, so it may hold up to twice the values appended;
`values()` views it as a numpy array without copying.

Invariant, for every width: the column is the list of the values appended or written, in
order; a value its width cannot hold raises OverflowError and leaves the column as it was.
"""
from __future__ import annotations

from typing import Any, Iterator

import numpy as np
from librt.vecs import append, vec
from mypy_extensions import i32, i64, u8


def _too_big(value: int, width: str) -> OverflowError:
    return OverflowError(f"{value} does not fit a {width} column")


def _checked(index: int) -> None:
    if index < 0:
        raise IndexError(f"column index {index} is negative")


def _view(items: Any, dtype: Any) -> Any:
    """The vector `items` as a numpy array of `dtype` over its buffer (no copy: it sees writes
    by index until an append moves the buffer, and never later appends)."""
    if not len(items):
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(items, dtype=dtype)   # a vec exports its buffer


class IntColumn:
    """A list of signed 64-bit integers: appends, reads and writes by index (0 <= index <
    len; no negative indices), and the whole as a numpy array."""

    def __init__(self) -> None:
        self.items: vec[i64] = vec[i64]()

    def append(self, value: int) -> None:
        try:
            self.items = append(self.items, value)
        except (ValueError, OverflowError):  # compiled, int-to-i64 raises ValueError
            raise _too_big(value, "signed 64-bit") from None

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> int:
        _checked(index)
        value: int = self.items[index]
        return value

    def __setitem__(self, index: int, value: int) -> None:
        _checked(index)
        try:
            self.items[index] = value
        except (ValueError, OverflowError):
            raise _too_big(value, "signed 64-bit") from None

    def __iter__(self) -> Iterator[int]:
        return iter(self.values().tolist())

    def values(self) -> Any:
        """Every value as an int64 numpy array over the column's buffer."""
        return _view(self.items, np.int64)


class Int32Column:
    """A list of signed 32-bit integers, as `IntColumn` is of 64-bit ones (half the bytes)."""

    def __init__(self) -> None:
        self.items: vec[i32] = vec[i32]()

    def append(self, value: int) -> None:
        try:
            self.items = append(self.items, value)
        except (ValueError, OverflowError):
            raise _too_big(value, "signed 32-bit") from None

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> int:
        _checked(index)
        value: int = self.items[index]
        return value

    def __setitem__(self, index: int, value: int) -> None:
        _checked(index)
        try:
            self.items[index] = value
        except (ValueError, OverflowError):
            raise _too_big(value, "signed 32-bit") from None

    def __iter__(self) -> Iterator[int]:
        return iter(self.values().tolist())

    def values(self) -> Any:
        """Every value as an int32 numpy array over the column's buffer."""
        return _view(self.items, np.int32)


class ByteColumn:
    """A list of integers from 0 to 255, as `IntColumn` is of 64-bit ones (an eighth of the
    bytes)."""

    def __init__(self) -> None:
        self.items: vec[u8] = vec[u8]()

    def append(self, value: int) -> None:
        try:
            self.items = append(self.items, value)
        except (ValueError, OverflowError):
            raise _too_big(value, "0-255") from None

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> int:
        _checked(index)
        value: int = self.items[index]
        return value

    def __setitem__(self, index: int, value: int) -> None:
        _checked(index)
        try:
            self.items[index] = value
        except (ValueError, OverflowError):
            raise _too_big(value, "0-255") from None

    def __iter__(self) -> Iterator[int]:
        return iter(self.values().tolist())

    def values(self) -> Any:
        """Every value as a uint8 numpy array over the column's buffer."""
        return _view(self.items, np.uint8)
