"""CPython's own hash of a tuple of ints (or of tuples), computed lane by lane in 64-bit
arithmetic instead of building the tuple: `model.parts` hashes a renamed state this way.

A tuple's hash (CPython 3.8 and later) folds its items' hashes, one lane each, into an
accumulator (an xxHash round: add lane * P2, rotate left 31, multiply by P1, all modulo 2**64)
and adds its length at the end; an int's hash is the int modulo 2**61 - 1 with its sign (-1 is
taken as -2). `START`, `mix`, `finish` and `int_lane` are those steps.

Compiled (mypyc), the `i64` arithmetic wraps modulo 2**64 as the C code does, with no tuple
built. From source, Python's ints do not wrap, so every step is reduced to 64 bits (`wrap`):
the same values, slower than hashing the tuple. `NATIVE` says whether to use this module:
where the arithmetic wraps (compiled) and a probe at import gives `hash()`'s values.
Invariant: for ints a, b, ... in the signed 64-bit range,
`finish(mix(mix(START, int_lane(a)), int_lane(b)), 2) == hash((a, b))`, and a tuple item's
lane is its own hash.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Final, Tuple

if TYPE_CHECKING:  # the native int type of mypyc; from source an annotation only
    from mypy_extensions import i64

_P1: Final[i64] = -7046029288634856825   # 11400714785074694791 as a signed 64-bit value
#: (_P1 - 1) / 2: compiled, `acc * _P1` is taken as `((acc * _HALF_P1) << 1) + acc`, since a
#: literal beyond 62 bits is read as a Python int at every use
_HALF_P1: Final[i64] = -3523014644317428413
_P2: Final[i64] = -4417276706812531889   # 14029467366897019727
_P5: Final[i64] = 2870177450012600261
_LENGTH_KEY: Final[i64] = _P5 ^ 3527539  # keeps hash(()) what it always was
_MODULUS: Final[i64] = 2305843009213693951  # 2**61 - 1, the modulus of an int's hash
_HALF: Final[int] = 1 << 63     # from source only: reducing an int to 64 bits
_ALL: Final[int] = (1 << 64) - 1

#: the accumulator of an empty tuple
START: Final[i64] = _P5


def _wraps(x: i64) -> bool:
    """True where i64 arithmetic wraps modulo 2**64 (compiled); from source, False."""
    return x * 4 == 0


WRAPS: Final = _wraps(1 << 62)


def wrap(x: i64) -> i64:
    """`x` modulo 2**64, as a signed 64-bit value (compiled, it already is)."""
    if WRAPS:
        return x
    return ((x + _HALF) & _ALL) - _HALF


def int_lane(v: i64) -> i64:
    """hash(v) for an int in the signed 64-bit range: |v| modulo 2**61 - 1 with v's sign,
    -1 taken as -2 (for v < 0, -(|v| mod M) is (v mod M) - M, or 0)."""
    rest = v % _MODULUS     # floor modulo: in [0, M)
    if v >= 0 or rest == 0:
        return rest
    lane = rest - _MODULUS
    if lane == -1:          # (an if, not a conditional expression: that one boxes, compiled)
        return -2
    return lane


def mix(acc: i64, lane: i64) -> i64:
    """The accumulator after one more item whose hash is `lane` (compiled, the first branch:
    wrapping arithmetic; from source, the same steps each reduced to 64 bits)."""
    if WRAPS:
        acc += lane * _P2
        acc = (acc << 31) | ((acc >> 33) & 0x7FFFFFFF)   # rotate left 31 bits
        return ((acc * _HALF_P1) << 1) + acc      # acc * _P1
    acc = wrap(acc + wrap(lane * _P2))
    acc = wrap(acc << 31) | ((acc >> 33) & 0x7FFFFFFF)
    return wrap(acc * _P1)


def finish(acc: i64, length: i64) -> i64:
    """The hash of a tuple of `length` items whose lanes made `acc`."""
    if WRAPS:
        acc += length ^ _LENGTH_KEY
    else:
        acc = wrap(acc + (length ^ _LENGTH_KEY))
    if acc == -1:
        return 1546275796
    return acc


def triple(a: i64, b: i64, c: i64) -> i64:
    """hash((a, b, c)) for ints."""
    return finish(mix(mix(mix(START, int_lane(a)), int_lane(b)), int_lane(c)), 3)


def pair(a: i64, lane: i64) -> i64:
    """hash((a, b)) for an int a and an item b whose hash is `lane`."""
    return finish(mix(mix(START, int_lane(a)), lane), 2)


def ints(values: Tuple[int, ...]) -> i64:
    """hash(values) for a tuple of ints."""
    acc: i64 = START
    for v in values:
        acc = mix(acc, int_lane(v))
    return finish(acc, len(values))


def renamed_ints(refs: Tuple[int, ...], names: Tuple[int, ...]) -> i64:
    """hash(tuple(names[r] for r in refs)), without building it."""
    acc: i64 = START
    for r in refs:
        acc = mix(acc, int_lane(names[r]))
    return finish(acc, len(refs))


def _probe() -> bool:
    """True when this module's values are `hash()`'s on ints at the edges of every step."""
    edge = (0, 1, -1, -2, 4, -4, _MODULUS, _MODULUS + 1, -_MODULUS, -_MODULUS - 1,
            (1 << 62) + 12345, -(1 << 63), -(1 << 63) + 1, (1 << 63) - 1)
    nested = (edge, (7, -1), ())
    acc: i64 = START
    for inner in nested:
        acc = mix(acc, ints(inner))
    return all(int_lane(v) == hash(v) for v in edge) and \
        finish(acc, len(nested)) == hash(nested) and triple(-1, 5, 3) == hash((-1, 5, 3))


#: use this module to hash (compiled, and it gives `hash()`'s values here)
NATIVE: Final = WRAPS and _probe()
