"""Mappings as values: tuples of (key, value) pairs sorted by key (every key is an int: a
session token, a message index).

A state stores every mapping this way, so two states that mean the same thing are the same
value (equal and hashing equal) and an update shares everything it does not change.
Invariant kept by every function here: keys are unique and sorted.
"""
from __future__ import annotations

from typing import Any, Tuple

Pairs = Tuple[Tuple[Any, Any], ...]


def _position(pairs: Pairs, key: int) -> int:
    """The index of the first pair whose key is not below `key` (binary search on the keys
    alone: compiled, this is several times faster than `bisect` over (key,) tuples)."""
    lo, hi = 0, len(pairs)
    while lo < hi:
        mid = (lo + hi) >> 1
        found: int = pairs[mid][0]   # typed: compiled, an unboxed compare of two ints
        if found < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


def keys_below(pairs: Pairs, key: int) -> int:
    """How many keys of `pairs` are below `key`."""
    return _position(pairs, key)


def tget(pairs: Pairs, key: int, default: Any = None) -> Any:
    """Value for `key` in a sorted pair tuple, or `default`."""
    i = _position(pairs, key)
    if i < len(pairs):
        found = pairs[i]
        at: int = found[0]
        if at == key:
            return found[1]
    return default


def tset(pairs: Pairs, key: int, value: Any) -> Pairs:
    """A copy of `pairs` with `key` bound to `value`, still sorted by key."""
    i = _position(pairs, key)
    items = list(pairs)      # one list and one tuple: fewer copies than slicing and joining
    if i < len(pairs) and pairs[i][0] == key:
        items[i] = (key, value)
    else:
        items.insert(i, (key, value))
    return tuple(items)


def tdel(pairs: Pairs, key: int) -> Pairs:
    """A copy of `pairs` without `key`."""
    i = _position(pairs, key)
    if i < len(pairs) and pairs[i][0] == key:
        items = list(pairs)
        del items[i]
        return tuple(items)
    return pairs


# Identity scans take the tuples as tuples of objects: indexed through the `Pairs` type, a
# compiled pair is unpacked into two C values and packed into a new tuple to be compared, so
# `is` would never hold and every scan would run to the end.
def shared_prefix(old: Tuple[object, ...], new: Tuple[object, ...]) -> int:
    """How many leading items two tuples share object for object (an update here keeps every
    pair it does not change, so two versions of one mapping share all but what changed)."""
    n = min(len(old), len(new))
    k = 0
    while k < n and old[k] is new[k]:
        k += 1
    return k


def shared_suffix(old: Tuple[object, ...], new: Tuple[object, ...], floor: int = 0) -> int:
    """How many trailing items two tuples share object for object, leaving out the first
    `floor` items of each (pass `shared_prefix`, so no item counts twice)."""
    i, j = len(old), len(new)
    while i > floor and j > floor and old[i - 1] is new[j - 1]:
        i -= 1
        j -= 1
    return len(old) - i
