"""Seeds for a replication's many random streams: the very words numpy's `SeedSequence` gives,
without building a `SeedSequence` per stream.

Stream (kind, entity) of a replication seeded by `SeedSequence(entropy, spawn_key=K)` is
`PCG64(SeedSequence(entropy, spawn_key=K + (kind, entity)))`. Through numpy's Python-facing
code that costs about 14 µs a stream (a third of it in `generate_state`), some 1,100 times a
replication: 8% of one. Yet the streams of one kind differ only in the last word they mix in.

`SeedSequence` (M. O'Neill's `seed_seq` variant, which numpy keeps fixed so that seeds stay
reproducible) mixes its entropy words, then the spawn key's, into a pool of four 32-bit words
with a hash whose multiplier advances at every word; `generate_state` hashes the pool out. So
`StreamSeeds` mixes everything but the entity once per kind, and for each stream mixes in the
entity's words and hashes the pool out: a few dozen integer operations, compiled.

Invariant: `StreamSeeds(entropy, K).state(kind, entity)` equals
`SeedSequence(entropy, spawn_key=K + (kind, entity)).generate_state(4, np.uint64)` for every
non-negative int entropy, key and entity (tests/test_seeding.py checks it against the numpy
installed). A PCG64 seeded through `SeedWords` is the PCG64 the `SeedSequence` would seed.
"""
from __future__ import annotations

from typing import Any, Dict, Final, List, Tuple

import numpy as np
from numpy.random.bit_generator import ISeedSequence

MASK32: Final = 0xFFFFFFFF
POOL_SIZE: Final = 4            # numpy's default pool: 128 bits
INIT_A: Final = 0x43B0D7E5      # the mixing hash's first multiplier
MULT_A: Final = 0x931E8875      # and its step
INIT_B: Final = 0x8B51F9DD      # the output hash's
MULT_B: Final = 0x58F38DED
MIX_L: Final = 0xCA01F9DD
MIX_R: Final = 0x4973F715
XSHIFT: Final = 16
PCG64_WORDS: Final = 4          # a PCG64 seeds from four 64-bit words (state and increment)


def uint32_words(n: int) -> List[int]:
    """The 32-bit words of a non-negative int, lowest first (0 is one word), as numpy splits
    an int of entropy or of a spawn key."""
    if n < 0:
        raise ValueError(f"seed words must be non-negative, not {n}")
    words = [n & MASK32]
    n >>= 32
    while n:
        words.append(n & MASK32)
        n >>= 32
    return words


def _mul32(a: int, b: int) -> int:
    """a * b modulo 2**32, for 32-bit a and b, from products of their 16-bit halves (compiled,
    a product stays in machine integers only while both factors are below 2**30)."""
    a_lo, b_lo = a & 0xFFFF, b & 0xFFFF
    cross = ((a >> 16) * b_lo + a_lo * (b >> 16)) & 0xFFFF
    return (a_lo * b_lo + (cross << 16)) & MASK32


def _hashmix(value: int, multiplier: int) -> Tuple[int, int]:
    """(hashed value, next multiplier) of the mixing hash."""
    value ^= multiplier
    multiplier = _mul32(multiplier, MULT_A)
    value = _mul32(value, multiplier)
    return value ^ (value >> XSHIFT), multiplier


def _mix(x: int, y: int) -> int:
    result = (_mul32(MIX_L, x) - _mul32(MIX_R, y)) & MASK32
    return result ^ (result >> XSHIFT)


def _mix_word(p0: int, p1: int, p2: int, p3: int, word: int,
              multiplier: int) -> Tuple[int, int, int, int, int]:
    """Mix one word beyond the pool's size into every pool word: (the pool, the multiplier
    reached). The pool is four arguments, not a list: compiled, they stay machine integers."""
    hashed, multiplier = _hashmix(word, multiplier)
    p0 = _mix(p0, hashed)
    hashed, multiplier = _hashmix(word, multiplier)
    p1 = _mix(p1, hashed)
    hashed, multiplier = _hashmix(word, multiplier)
    p2 = _mix(p2, hashed)
    hashed, multiplier = _hashmix(word, multiplier)
    p3 = _mix(p3, hashed)
    return p0, p1, p2, p3, multiplier


def mixed_pool(words: List[int]) -> Tuple[List[int], int]:
    """(pool, multiplier reached) after mixing `words` as a SeedSequence mixes its entropy."""
    pool: List[int] = []
    multiplier = INIT_A
    for i in range(POOL_SIZE):
        hashed, multiplier = _hashmix(words[i] if i < len(words) else 0, multiplier)
        pool.append(hashed)
    for src in range(POOL_SIZE):             # every pool word into every other
        for dst in range(POOL_SIZE):
            if src != dst:
                hashed, multiplier = _hashmix(pool[src], multiplier)
                pool[dst] = _mix(pool[dst], hashed)
    p0, p1, p2, p3 = pool
    for word in words[POOL_SIZE:]:
        p0, p1, p2, p3, multiplier = _mix_word(p0, p1, p2, p3, word, multiplier)
    return [p0, p1, p2, p3], multiplier


def pool_state(p0: int, p1: int, p2: int, p3: int) -> List[int]:
    """The PCG64_WORDS 64-bit words `generate_state(PCG64_WORDS, np.uint64)` hashes out of the
    pool (p0, p1, p2, p3) (32-bit words, each pair read little-endian)."""
    out: List[int] = []
    multiplier = INIT_B
    low = 0
    for i in range(2 * PCG64_WORDS):
        at = i % POOL_SIZE
        value = (p0 if at == 0 else p1 if at == 1 else p2 if at == 2 else p3) ^ multiplier
        multiplier = _mul32(multiplier, MULT_B)
        value = _mul32(value, multiplier)
        value ^= value >> XSHIFT
        if i % 2 == 0:
            low = value
        else:
            out.append(low | (value << 32))
    return out


class StreamSeeds:
    """The seed state of every stream (kind, entity) under one replication's SeedSequence
    (int `entropy`, `spawn_key`): each kind's pool is mixed once, each stream's from it."""

    def __init__(self, entropy: int, spawn_key: Tuple[int, ...]):
        run = uint32_words(entropy)
        # a spawned sequence pads its entropy to the pool's size (numpy >= 1.19); every stream
        # is spawned (its key ends with (kind, entity)), so the padding always applies
        self.prefix = run + [0] * (POOL_SIZE - len(run))
        for key in spawn_key:
            self.prefix.extend(uint32_words(key))
        self._kinds: Dict[int, Tuple[List[int], int]] = {}

    def state(self, kind: int, entity: int) -> List[int]:
        """`SeedSequence(entropy, spawn_key=spawn_key + (kind, entity))
        .generate_state(PCG64_WORDS, np.uint64)`, as ints."""
        mixed = self._kinds.get(kind)
        if mixed is None:
            mixed = self._kinds[kind] = mixed_pool(self.prefix + uint32_words(kind))
        pool, multiplier = mixed
        p0, p1, p2, p3 = pool[0], pool[1], pool[2], pool[3]
        for word in uint32_words(entity):
            p0, p1, p2, p3, multiplier = _mix_word(p0, p1, p2, p3, word, multiplier)
        return pool_state(p0, p1, p2, p3)


class SeedWords:
    """A seed sequence that gives a PCG64 the state words worked out for it (`StreamSeeds`):
    all a bit generator asks of its seed sequence. It cannot spawn."""

    def __init__(self, words: List[int]):
        self.words = np.array(words, dtype=np.uint64)

    def generate_state(self, n_words: int, dtype: Any = np.uint32) -> np.ndarray:
        if n_words != len(self.words) or (dtype is not np.uint64
                                          and np.dtype(dtype) != np.dtype(np.uint64)):
            raise ValueError(f"SeedWords holds {len(self.words)} uint64 words for a PCG64, "
                             f"not {n_words} of {dtype}")
        return self.words


# numpy seeds a bit generator from any ISeedSequence; registered, not derived, so the class
# compiles as a native class
ISeedSequence.register(SeedWords)


def pcg64(words: List[int]) -> np.random.Generator:
    """A Generator over the PCG64 that `words` (from `StreamSeeds.state`) seed."""
    seed: Any = SeedWords(words)      # numpy's stubs name SeedSequence, not ISeedSequence
    return np.random.Generator(np.random.PCG64(seed))
