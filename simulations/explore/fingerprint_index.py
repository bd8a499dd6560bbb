"""A map from 64-bit fingerprints to small indices with no Python object per entry.

The search finds a reached state through its class fingerprint (`frontier.Search.node_of`).
A dict from int to int holds a key and a value object per entry besides its table: about 120
bytes per class, the largest part of the visited set. `FingerprintIndex` keeps both in one
`librt.vecs.vec[i64]` (open addressing, linear probing, at most two thirds full): 24 to 48
bytes per entry, and compiled, a lookup converts its key to a machine integer instead of
hashing an int object. It maps, it does not iterate: the search never walks its classes.
"""
from __future__ import annotations

from typing import Final

from librt.vecs import append, vec
from mypy_extensions import i64

# a slot is two entries, the key and the value + 1 (0: the slot is empty), so any 64-bit key
# can be held and a lookup reads one cache line
_EMPTY: Final[i64] = 0
_FIRST_BITS: Final[i64] = 10


# Fibonacci hashing: 2**64 over the golden ratio, odd, as a signed 64-bit value
_GOLDEN: Final[i64] = -7046029254386353131       # 0x9E3779B97F4A7C15 - 2**64


def _slot(key: i64, shift: i64, mask: i64) -> i64:
    """The first slot to probe for `key`: the top bits of `key` times `_GOLDEN` modulo 2**64,
    so keys alike in any of their bits spread over the table. Compiled, the product wraps
    (the build's -fwrapv); from source it is exact, and its bits below 64 are the same, as are
    the bits this takes after an arithmetic shift."""
    return ((key * _GOLDEN) >> shift) & mask


class FingerprintIndex:
    """A map from any 64-bit int to an int in [0, 2**63 - 1): `get`, `put` (insert or
    overwrite) and `len`. `put` with a key or value out of range raises OverflowError,
    changing nothing; `get` of a key out of range gives its default (no such key is held)."""

    def __init__(self) -> None:
        self.shift: i64 = 64 - _FIRST_BITS
        self.mask: i64 = (1 << _FIRST_BITS) - 1
        self.size: i64 = 0
        self.slots: vec[i64] = _empty(1 << _FIRST_BITS)

    def __len__(self) -> int:
        return self.size

    def get(self, key: int, default: int = -1) -> int:
        """The value `key` maps to, else `default`."""
        try:
            k: i64 = key      # compiled, converted with a check (from source, not needed)
        except (ValueError, OverflowError):
            return default
        slots, mask = self.slots, self.mask
        i = _slot(k, self.shift, mask)
        while True:
            stored = slots[2 * i + 1]
            if stored == _EMPTY:
                return default
            if slots[2 * i] == k:
                value: int = stored - 1
                return value
            i = (i + 1) & mask

    def put(self, key: int, value: int) -> None:
        """Map `key` to `value` (0 <= value < 2**63 - 1), in place of what it mapped to."""
        try:
            k: i64 = key                # compiled, converted with a check
            stored: i64 = value + 1
        except (ValueError, OverflowError):
            k, stored = 0, 0
        # from source the conversions check nothing: an i64 shifted right by 63 is 0 or -1
        if not (k >> 63 == 0 or k >> 63 == -1) or stored <= 0 or stored >> 63 != 0:
            raise OverflowError(f"a fingerprint index holds 64-bit keys and values in "
                                f"[0, 2**63 - 1), not {key} -> {value}")
        if not self._store(k, stored) and 3 * self.size > 2 * (self.mask + 1):
            self._grow()

    def _store(self, k: i64, stored: i64) -> bool:
        """Write the pair into its slot; True when the key was there already."""
        slots, mask = self.slots, self.mask
        i = _slot(k, self.shift, mask)
        while True:
            there = slots[2 * i + 1]
            if there == _EMPTY:
                slots[2 * i] = k
                slots[2 * i + 1] = stored
                self.size += 1
                return False
            if slots[2 * i] == k:
                slots[2 * i + 1] = stored
                return True
            i = (i + 1) & mask

    def _grow(self) -> None:
        """Twice the slots, every pair placed again."""
        old, count = self.slots, self.mask + 1
        self.shift -= 1
        self.mask = 2 * count - 1
        self.size = 0
        self.slots = _empty(2 * count)
        i: i64 = 0
        while i < count:
            stored = old[2 * i + 1]
            if stored != _EMPTY:
                self._store(old[2 * i], stored)
            i += 1


def _empty(slot_count: i64) -> vec[i64]:
    """Room for `slot_count` pairs, every slot empty."""
    count: i64 = 2 * slot_count
    slots = vec[i64](capacity=count)
    i: i64 = 0
    while i < count:    # compiled, a write into the buffer (a range would make an int each)
        slots = append(slots, _EMPTY)
        i += 1
    return slots
