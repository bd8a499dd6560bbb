"""`bench explore`'s yardstick: plain Python breadth-first searches over nested tuples of small
ints, shaped like the states the explorer visits, doing what any explicit-state search must
(build a successor, hash it, test it against a visited set, record a parent pointer) and
nothing the model adds.

- `exhaustive_bfs` (the yardstick `ratio` is over): a finite space searched to the end, as the
  explorer searches a scope. It has about as many states as the scope and the same successors
  per state; every state it counts it also expands, and every state but the first is found
  once as new and otherwise as already visited, as in the scope.
- `truncated_bfs` (the yardstick of earlier versions): a search of an unbounded tree stopped once
  it has reached as many states as the scope. Most states it counts are leaves it never
  expands (two in three at three successors a state), so it builds and hashes about one
  successor per state counted where the explorer builds `branching`: it measures less work
  per state than the explorer must do, and the more successors per state, the less.
"""
from __future__ import annotations

import time
from typing import Dict, List, Tuple

from model.record import Record


def _parts(value):
    """The parts of a record (its fields) or of a tuple or list; None for a scalar."""
    if isinstance(value, Record):
        return value._key()
    if isinstance(value, (tuple, list)):
        return value
    return None


def plain(value):
    """A state as plain nested tuples of small ints (its shape, not its types): every record
    becomes the tuple of its fields, every scalar 0, an empty tuple stays empty."""
    parts = _parts(value)
    return 0 if parts is None else tuple(plain(v) for v in parts)


def paths(value, prefix=()) -> List[Tuple[int, ...]]:
    """The index path of every scalar in a nested tuple, in order."""
    if isinstance(value, tuple):
        return [p for i, v in enumerate(value) for p in paths(v, prefix + (i,))]
    return [prefix]


def bump(value: tuple, path: Tuple[int, ...], step: int, modulus: int) -> tuple:
    """A copy of a nested tuple with the scalar at `path` moved by `step` (mod `modulus`);
    every tuple on the path is rebuilt, every other one shared: what an immutable model's
    update must do."""
    i = path[0]
    inner = ((value[i] + step) % modulus if len(path) == 1
             else bump(value[i], path[1:], step, modulus))
    return value[:i] + (inner,) + value[i + 1:]


def scalars(value) -> int:
    """How many scalars a state holds, as `plain` would lay them out."""
    parts = _parts(value)
    return 1 if parts is None else sum(scalars(v) for v in parts)


def nesting(value) -> int:
    """How deep records and tuples nest in a state (a scalar is 0)."""
    parts = _parts(value)
    return 0 if parts is None else 1 + max((nesting(v) for v in parts), default=0)


def typical_state(scope, policy: str) -> Tuple[object, Dict[str, object]]:
    """The state the yardstick is shaped like: of the states a search of `scope` reaches (in
    the order it reaches them), the first whose number of scalars is the median (the upper
    middle one of an even count), with the spread it was chosen from (`states`, and `min`,
    `median`, `max` and `initial` scalars). The initial state is the emptiest of them all: no
    session, no buffer, nothing in flight."""
    from .ceilings import model_bfs
    expanded: List[tuple] = []
    model_bfs(scope, policy, expanded)
    reached = [state for state, _, _, _ in expanded]
    sizes = [scalars(state) for state in reached]
    median = sorted(sizes)[len(sizes) // 2]
    chosen = reached[sizes.index(median)]
    return chosen, {"states": len(reached), "min": min(sizes), "median": median,
                    "max": max(sizes), "initial": sizes[0]}


def axes(root: tuple, count: int) -> List[Tuple[int, ...]]:
    """`count` distinct scalar paths of `root` a successor may change: of the scalars at the
    median depth, evenly spaced in order (so a successor rebuilds as many tuples as a typical
    scalar's path holds); of all scalars where fewer are at that depth."""
    every = paths(root)
    depth = sorted(len(p) for p in every)[len(every) // 2]
    pool = [p for p in every if len(p) == depth]
    if len(pool) < count:
        pool = every
    if len(pool) < count:
        raise ValueError(f"a state of {len(pool)} scalars cannot have {count} successors "
                         f"each changing a different one")
    return [pool[len(pool) * (j + 1) // (count + 1)] for j in range(count)]


def exhaustive_bfs(states: int, branching: float, shape) -> Dict[str, object]:
    """A plain Python BFS searched to the end of a finite space: the yardstick for the explorer.

    States are shaped like `shape`. The space is a grid: `int(branching)` scalars (`axes`) each
    range over `modulus` values, the others stay 0, so it has modulus ** int(branching) states,
    modulus chosen to come nearest `states`. A state's successors move each of those scalars by
    one, and the states whose hash says so (the fraction `branching` - int(branching) of them)
    have one more, moving the first scalar by two: `branching` successors per state on average,
    within the grid. Each successor rebuilds the path to its scalar, the whole nested state is
    hashed, tested against the visited set (a dict of hash to the parent's hash) and recorded if
    new; a state's hash travels with it in the frontier. Returns the states, those expanded
    (all of them), the successors built (`transitions`), the depth and the rate."""
    if branching < 1 or states < 2:
        raise ValueError(f"the yardstick needs at least 2 states and 1 successor per state, "
                         f"got {states} states and {branching} successors")
    fan = int(branching)
    extra = round((branching - fan) * 1000)  # per thousand states, by hash
    modulus = max(3, round(states ** (1.0 / fan)))
    root = plain(shape)
    moves = [(path, 1) for path in axes(root, fan)]
    more = moves + [(moves[0][0], 2)]
    start = time.process_time()
    key0 = hash(root)
    parents = {key0: None}
    frontier, depth, transitions, expanded = [(root, key0)], 0, 0, 0
    while frontier:
        expanded += len(frontier)
        following = []
        for state, key in frontier:
            here = more if key % 1000 < extra else moves
            transitions += len(here)
            for path, step in here:
                child = bump(state, path, step, modulus)
                found = hash(child)
                if found not in parents:
                    parents[found] = key
                    following.append((child, found))
        frontier = following
        depth += 1
    cpu = time.process_time() - start
    return {"states": len(parents), "expanded": expanded, "transitions": transitions,
            "depth": depth - 1, "modulus": modulus, "cpu_seconds": cpu,
            "states_per_s": len(parents) / cpu}


def truncated_bfs(states: int, branching: float, shape) -> Dict[str, object]:
    """The yardstick of earlier versions: a plain Python BFS over an unbounded tree, stopped after
    the level where it has reached `states` distinct states. Each state has round(branching)
    successors, each with one scalar (chosen by the state's hash) moved by one mod 5. Its rate
    counts every state reached, leaves it never expanded included (`expanded` says how many it
    did expand; see the module's text)."""
    fan = max(1, round(branching))
    root = plain(shape)
    every = paths(root)
    start = time.process_time()
    parents = {hash(root): None}
    frontier, depth, expanded = [root], 0, 0
    while frontier and len(parents) < states:
        depth += 1
        expanded += len(frontier)
        following = []
        for state in frontier:
            key = hash(state)
            for i in range(fan):
                child = bump(state, every[(key + i) % len(every)], 1, 5)
                found = hash(child)
                if found not in parents:
                    parents[found] = key
                    following.append(child)
        frontier = following
    cpu = time.process_time() - start
    return {"states": len(parents), "expanded": expanded, "transitions": expanded * fan,
            "depth": depth, "cpu_seconds": cpu,
            "states_per_s": len(parents) / cpu}
