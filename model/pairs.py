"""Mappings as values: tuples of (key, value) pairs sorted by key.

A state stores every mapping this way, so two states that mean the same thing are the same
value (equal and hashing equal) and an update shares everything it does not change.
Invariant kept by every function here: keys are unique and sorted.
"""
from __future__ import annotations

from bisect import bisect_left
from typing import Any, Tuple

Pairs = Tuple[Tuple[Any, Any], ...]


def tget(pairs: Pairs, key: Any, default: Any = None) -> Any:
    """Value for `key` in a sorted pair tuple, or `default` (binary search)."""
    i = bisect_left(pairs, (key,))
    if i < len(pairs) and pairs[i][0] == key:
        return pairs[i][1]
    return default


def tset(pairs: Pairs, key: Any, value: Any) -> Pairs:
    """A copy of `pairs` with `key` bound to `value`, still sorted by key."""
    i = bisect_left(pairs, (key,))
    if i < len(pairs) and pairs[i][0] == key:
        return pairs[:i] + ((key, value),) + pairs[i + 1:]
    return pairs[:i] + ((key, value),) + pairs[i:]


def tdel(pairs: Pairs, key: Any) -> Pairs:
    """A copy of `pairs` without `key`."""
    i = bisect_left(pairs, (key,))
    if i < len(pairs) and pairs[i][0] == key:
        return pairs[:i] + pairs[i + 1:]
    return pairs
