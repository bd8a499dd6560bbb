"""Liveness on the explored state graph: can a client wait forever?

A client waits when it holds a session (idle or open) and lacks messages it was not told it
lost. It waits *forever* on a run where, from some point on, the system keeps making its own
progress (fair actions: deliveries, emissions, a client's scheduled reconnect or
re-initialization, an instance start, and the stop that completes a drain) and no fault happens
any more (crashes, drops, client restarts, idle timeouts, evictions, compactions, foreign
cursors: faults are never assumed to come to the rescue). Such a run ends in a bottom strongly
connected component of the graph of fair transitions: fair progress never leaves it. So the
check is: a reachable state, in a bottom component of the fair graph, where a client waits.

The graph's nodes are classes of states, not states: a class is a model state (up to symmetry)
with the budgets fair transitions spend (sessions for Init, restarts for the Stop that completes
a drain). A fair transition never spends another budget, and which fair actions a state has
depends on its model state and those two budgets only, so every state of a class has the same
fair successors' classes, and a state is in a bottom component of the fair graph of states
exactly when its class is in one of the graph of classes. A class's fair edges are therefore
recorded once, from the first of its states to be fully expanded, and its shortest witness is
its first state in breadth-first order. (This is also what lets the explorer skip states whose
fault budgets another state of their class covers: `frontier`.)

Only compact columns are kept (`columns`: per class a waiting cause and whether it was expanded,
a byte each; each fair edge as one 64-bit int packing its two class indices); where each class
was first reached is the search's to say (`verdict`'s `first_of`). The components come from
scipy's sparse-graph routine, so the check scales with the explorer. On a truncated search a
component with an unexpanded class may not be bottom at all: such components never count as
witnesses, and leave the verdict unknown when nothing else does.
"""
from __future__ import annotations

from typing import Callable, Dict, Final, List, Optional, Tuple

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from model import Deliver, Emit, Init, Reconnect, Start, Stop

from .columns import ByteColumn, IntColumn
from .verdict import HOLDS, UNKNOWN, VIOLATED, Finding, Verdict

#: class indices are below this, so that an edge packs two into one 64-bit int
CLASS_LIMIT: Final = 1 << 31
EDGE_MASK: Final = (1 << 32) - 1
#: waiting causes a graph can name (a class's is one byte: 0 for none, else its code + 1)
CAUSE_LIMIT: Final = 255

#: transitions the system is assumed to keep making (weak fairness of its own progress)
FAIR_KINDS = (Deliver, Emit, Reconnect, Init, Start)


def is_fair(action, state) -> bool:
    """A progress transition: one of FAIR_KINDS, or the stop that completes a drain (a drain
    is an operator's rolling restart under way: it is always finished)."""
    kind = type(action)
    if kind is Deliver or kind is Emit or kind is Reconnect or kind is Init or kind is Start:
        return True      # FAIR_KINDS, compared by identity (a tuple search costs more)
    return kind is Stop and state.instances[action.instance].status == "draining"


class LivenessGraph:
    """The fair transitions of an exploration between classes of states, as compact columns."""

    def __init__(self) -> None:
        self.cause = ByteColumn()      # class -> waiting cause code + 1 (0: nobody waits)
        self.done = ByteColumn()       # class -> 1 once a state of it was fully expanded
        self.edges = IntColumn()       # fair edge u -> v as (u << 32) | v
        self.causes: List[str] = []    # cause code -> cause

    def add_class(self, cause: Optional[str]) -> int:
        """A new class (its index below 2**31, so that an edge packs two); returns its
        index."""
        klass = len(self.cause)
        if klass >= CLASS_LIMIT:
            raise OverflowError(f"{CLASS_LIMIT:,} classes of states: too many for the "
                                "liveness graph")
        code = 0
        if cause is not None:
            if cause not in self.causes:
                if len(self.causes) >= CAUSE_LIMIT:
                    raise OverflowError(f"more than {CAUSE_LIMIT} waiting causes: too many "
                                        "for the liveness graph")
                self.causes.append(cause)
            code = self.causes.index(cause) + 1
        self.cause.append(code)
        self.done.append(0)
        return klass

    def waiting(self, klass: int) -> bool:
        """A client waits in the states of class `klass`."""
        return self.cause[klass] > 0

    def add_edge(self, u: int, v: int) -> None:
        """A fair edge from class `u` to class `v` (one int: one append, not two)."""
        self.edges.append((u << 32) | v)

    def expanded(self, u: int) -> None:
        self.done[u] = 1

    def stuck_classes(self) -> Tuple[Dict[str, int], bool]:
        """({cause: the first class where a client waits forever for it}, whether some
        candidate's component could not be fully expanded)."""
        n = len(self.cause)
        edges = self.edges.values()
        src, dst = edges >> 32, edges & EDGE_MASK
        matrix = csr_matrix((np.ones(len(src), dtype=bool), (src, dst)), shape=(n, n))
        count, comp = connected_components(matrix, directed=True, connection="strong")
        not_bottom = np.zeros(count, dtype=bool)
        leaving = comp[src] != comp[dst]
        not_bottom[comp[src[leaving]]] = True
        unexpanded = np.zeros(count, dtype=bool)
        unexpanded[comp[self.done.values() == 0]] = True
        cause = self.cause.values().astype(np.int64) - 1     # the cause code, -1 for none
        candidate = (cause >= 0) & ~not_bottom[comp]
        stuck = candidate & ~unexpanded[comp]
        witness: Dict[str, int] = {}
        for code, name in enumerate(self.causes):
            hits = np.flatnonzero(stuck & (cause == code))
            if len(hits):
                witness[name] = int(hits[0])   # BFS order: the first is a shallowest one
        return witness, bool(np.any(candidate & unexpanded[comp]))

    def verdict(self, name: str, result, path_to: Callable[[int], List],
                fp_of: Callable[[int], int], first_of: Callable[[int], int]):
        """The liveness Verdict for an Exploration (shortest path into a stuck component);
        `path_to(state)` gives the actions from the initial state to a state index, `fp_of`
        its fingerprint, `first_of(klass)` the index of a class's first state (breadth-first)."""
        witness, undetermined = self.stuck_classes()
        causes = {}
        for cause, klass in sorted(witness.items(), key=lambda kv: kv[1]):
            node = first_of(klass)
            causes[cause] = Finding(name, f"a client waits forever ({cause})",
                                    path_to(node), fp_of(node), cause)
        if causes:
            first = min(causes.values(), key=lambda f: len(f.actions))
            return Verdict(name, VIOLATED, first, causes=dict(sorted(causes.items())))
        if result.complete and not undetermined:
            return Verdict(name, HOLDS)
        why = result.why_unknown() if not result.complete else \
            "a component could not be fully expanded"
        return Verdict(name, UNKNOWN, why=why)
