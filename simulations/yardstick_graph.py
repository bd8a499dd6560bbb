"""`bench explore`'s same-graph yardstick: a plain Python BFS of the scope's own state graph.

The grid yardsticks (`simulations.yardstick`) search a made-up space whose every successor
moves one scalar of a state shaped like a typical one. This one searches the scope's own space:
the explorer's very states, as plain nested tuples of small ints, and its very transitions,
each successor built by rebuilding exactly the tuples the model's transition changed. It is
the same search with the model taken out: the same states, successors, depth and frontier
widths, so the explorer's rate over it says what the model's work costs (enabled actions,
deciding what a transition changes, canonical fingerprints, properties, traces) beside the
work any search of this space must do (build each successor, hash it, test it against a
visited set, record a parent pointer).

Set up once, not timed (`ScopeGraph.build`):
- `scope_graph`: the scope's graph as the explorer searches it without subsumption, recorded
  by `ceilings.model_bfs` (one state per class under symmetry, with its budgets; for each, the
  class of each successor, in enabled-action order);
- `plain_values`: each state as nested tuples (a record is the tuple of its fields, a
  frozenset the sorted tuple of its members, an int itself, any other scalar a negative code
  of its own, so distinct states stay distinct tuples);
- `change`: for each transition, which tuples to rebuild and what to put where, from the two
  states' tuples: a part of the same length is entered, any other part taken whole.

What the yardstick is given for free, so that it is, if anything, faster than any search that
had to work these out: which scalars a transition changes and their new values (the model's
protocol logic), and a part whose length changed (a pair added to a mapping) as the
successor's own tuple, already built.
"""
from __future__ import annotations

import time
from typing import Any, Dict, List, Optional, Tuple

from model.record import Record
from model.state import State

from .ceilings import model_bfs
from .explore.scope import Scope

#: a compiled change: (index, the change inside the part at index or None, the new part)
Change = Tuple[Tuple[int, Optional["Change"], Any], ...]


def scope_graph(scope: Scope, policy: str) -> Tuple[List[Tuple[State, tuple]], List[List[int]]]:
    """(the states the explorer's search without subsumption visits, each with its budgets, in
    the order it reaches them; for each, the index of each successor's class): the graph of
    `ceilings.model_bfs`, which reaches exactly those states."""
    expanded: List[Tuple[State, tuple, Any, frozenset]] = []
    successors: List[List[int]] = []
    model_bfs(scope, policy, expanded, successors)
    return [(state, budget) for state, budget, _, _ in expanded], successors


def plain_values(value: Any, codes: Dict[Tuple[str, Any], int]) -> Any:
    """`value` as nested tuples of ints: a record is the tuple of its fields, a tuple or list
    the tuple of its items, a frozenset the tuple of its members (sorted), a bool 0 or 1, an
    int itself, any other scalar (a string, None) the negative code `codes` gives it (a new
    one the first time). Distinct values of one field give distinct tuples."""
    if isinstance(value, Record):
        return tuple(plain_values(v, codes) for v in value._key())
    if isinstance(value, (tuple, list)):
        return tuple(plain_values(v, codes) for v in value)
    if isinstance(value, frozenset):
        return tuple(sorted((plain_values(v, codes) for v in value), key=repr))
    if isinstance(value, int):
        return int(value)
    key = (type(value).__name__, value)
    code = codes.get(key)
    if code is None:
        code = codes[key] = -1 - len(codes)
    return code


def change(old: tuple, new: tuple) -> Change:
    """What turns tuple `old` into tuple `new` of the same length: for each index whose items
    differ, the change inside it where both are tuples of one length, else `new`'s item."""
    out = []
    for i, (a, b) in enumerate(zip(old, new)):
        if a == b:
            continue
        if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
            out.append((i, change(a, b), None))
        else:
            out.append((i, None, b))
    return tuple(out)


def patch(value: tuple, changes: Change) -> tuple:
    """`value` with `changes` made: every tuple on a changed path rebuilt, every other part
    shared with `value` (what an immutable model's update must do)."""
    if len(changes) == 1:
        i, inner, new = changes[0]
        return value[:i] + ((new if inner is None else patch(value[i], inner)),) \
            + value[i + 1:]
    parts = list(value)
    for i, inner, new in changes:
        parts[i] = new if inner is None else patch(parts[i], inner)
    return tuple(parts)


def _counts(changes: Change) -> Tuple[int, int, int]:
    """(tuples rebuilt, scalars set, parts taken whole) by `patch(..., changes)`."""
    rebuilt, scalars, whole = 1, 0, 0
    for _, inner, new in changes:
        if inner is None:
            whole += isinstance(new, tuple)
            scalars += not isinstance(new, tuple)
        else:
            r, s, w = _counts(inner)
            rebuilt, scalars, whole = rebuilt + r, scalars + s, whole + w
    return rebuilt, scalars, whole


class ScopeGraph:
    """A scope's state graph as the same-graph yardstick searches it: `root` (the initial
    state's tuples) and `script[i]` (for each successor of state i, in order: the change that
    builds it from state i's tuples, and its index)."""

    def __init__(self, root: tuple, script: List[List[Tuple[Change, int]]],
                 shape: Dict[str, float]) -> None:
        self.root = root
        self.script = script
        self.shape = shape

    @classmethod
    def build(cls, scope: Scope, policy: str) -> "ScopeGraph":
        """The graph of `scope` under `policy`, with its `shape`: states, transitions, and per
        transition the tuples rebuilt, scalars set and parts taken whole."""
        nodes, successors = scope_graph(scope, policy)
        codes: Dict[Tuple[str, Any], int] = {}
        tuples = [(plain_values(state, codes), plain_values(budget, codes))
                  for state, budget in nodes]
        if len(set(tuples)) != len(tuples):
            raise ValueError("two states of the scope have the same tuples")
        script = [[(change(tuples[i], tuples[j]), j) for j in row]
                  for i, row in enumerate(successors)]
        transitions = sum(len(row) for row in script)
        totals = [0, 0, 0]
        for row in script:
            for changes, _ in row:
                for k, n in enumerate(_counts(changes)):
                    totals[k] += n
        shape = {"states": len(nodes), "transitions": transitions,
                 "rebuilt_per_transition": totals[0] / transitions,
                 "scalars_per_transition": totals[1] / transitions,
                 "whole_per_transition": totals[2] / transitions}
        return cls(tuples[0], script, shape)


def same_graph_bfs(graph: ScopeGraph) -> Dict[str, object]:
    """A plain Python BFS of `graph`: each successor built by `patch` from its parent's tuples,
    the whole nested state hashed, tested against the visited set (a dict of hash to the
    parent's hash) and recorded if new; a state's hash and index travel with it in the
    frontier. Returns the states, those expanded, the successors built (`transitions`), the
    depth and the rate (states per CPU second)."""
    script = graph.script
    start = time.process_time()
    key0 = hash(graph.root)
    parents = {key0: None}
    frontier, depth, transitions, expanded = [(graph.root, key0, 0)], 0, 0, 0
    while frontier:
        expanded += len(frontier)
        following = []
        for state, key, i in frontier:
            here = script[i]
            transitions += len(here)
            for changes, j in here:
                child = patch(state, changes)
                found = hash(child)
                if found not in parents:
                    parents[found] = key
                    following.append((child, found, j))
        frontier = following
        depth += 1
    cpu = time.process_time() - start
    return {"states": len(parents), "expanded": expanded, "transitions": transitions,
            "depth": depth - 1, "cpu_seconds": cpu, "states_per_s": len(parents) / cpu}
