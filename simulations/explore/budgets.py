"""The budgets a search state has left, and when one state's budgets cover another's.

A search state is a model state (up to symmetry) with the budgets left (`Scope`: one per
budgeted action kind). Budgets only gate actions: `model.apply` never reads them, and a kind is
enabled while its budget lasts (`exhausted`). So a state with every budget at least as large as
another state's with the same model state can take every action the other can, to successors
that cover the other's successors in turn: whatever the other reaches, it reaches in as many
steps or fewer, with the same events on the way.

The budgets fair transitions spend (`FAIR`: sessions for Init, restarts for the Stop that
completes a drain) are kept apart from the others: the liveness check follows fair transitions,
so it needs them exact. A class of states is a model state with its fair budgets; within a
class, a state whose other budgets (`unfair`) are covered by an already reached state's adds
nothing to any verdict, and the explorer may skip it (`Dominance`, `subsumption`).
"""
from __future__ import annotations

from typing import Any, Dict, Final, FrozenSet, List, Tuple

from model import Drain, Stop
from model import tuple_hash as th

from .liveness import FAIR_KINDS
from .scope import BUDGET_NAMES, BUDGETED

Budget = Tuple[int, ...]
_SPEND: Final[Dict[type, int]] = {kind: BUDGET_NAMES.index(name) for name, kind in BUDGETED.items()}
#: indices of the budgets a fair transition may spend: Init's, and Stop's (the stop that
#: completes a drain is fair)
FAIR: Tuple[int, ...] = tuple(i for i, name in enumerate(BUDGET_NAMES)
                              if BUDGETED[name] in FAIR_KINDS or BUDGETED[name] is Stop)
UNFAIR: Tuple[int, ...] = tuple(i for i in range(len(BUDGET_NAMES)) if i not in FAIR)


def spend(budget: Budget, action: object) -> Budget:
    """The budgets left after `action` (listed only while its budget lasts: `exhausted`)."""
    index = _SPEND.get(type(action))
    if index is None:
        return budget
    return budget[:index] + (budget[index] - 1,) + budget[index + 1:]


def exhausted(budget: Budget) -> FrozenSet[type]:
    """The action kinds a state with these budgets left may not take: those whose budget is
    spent, and drains once no restart is left (a drain only leads to a stop)."""
    spent = {kind for kind, index in _SPEND.items() if budget[index] == 0}
    if Stop in spent:
        spent.add(Drain)
    return frozenset(spent)


def split(budget: Budget) -> Tuple[Budget, Budget]:
    """(the fair budgets, the others) of `budget`."""
    return tuple([budget[i] for i in FAIR]), tuple([budget[i] for i in UNFAIR])


def covers(more: Budget, less: Budget) -> bool:
    """Every budget of `more` is at least that of `less`."""
    for a, b in zip(more, less):
        if a < b:
            return False
    return True


class Remaining:
    """One distinct tuple of budgets left, as `Budgets` keeps it: the tuple, its fair budgets,
    its others (`unfair`) and their id, the action kinds it exhausts (`without`), and what
    spending each budgeted action kind leaves (`after`, filled as asked). A frontier state
    carries one, so its exhausted kinds are an attribute and a spend is a lookup by action
    kind: the tuple is never hashed again. Invariant: `without == exhausted(budget)`,
    `(fair, unfair) == split(budget)`, and `after[kind]` is what `Budgets.split` keeps for
    `spend(budget, action)` of an action of that kind, never this `Remaining` itself."""

    def __init__(self, budget: Budget, fair: Budget, unfair: Budget, uid: int) -> None:
        self.budget = budget
        self.fair = fair
        self.unfair = unfair
        self.uid = uid
        self.without = exhausted(budget)
        self.after: Dict[type, Remaining] = {}


class Budgets:
    """The distinct budget tuples of the searches of one scope (a frontier holds many states
    with the same), each kept once as a `Remaining`. Each distinct tuple of unfair budgets
    gets a small id, the same for every search that shares this object: a search finds its
    visited states by class and that id (`frontier.Search.node_of`) without hashing the tuple
    again."""

    def __init__(self) -> None:
        self.kept: Dict[Budget, Remaining] = {}
        #: each distinct tuple of unfair budgets -> its id (0, 1, ... in the order first seen)
        self.unfair_ids: Dict[Budget, int] = {}
        #: id -> hash of that tuple of unfair budgets
        self.unfair_hashes: List[int] = []

    def split(self, budget: Budget) -> Remaining:
        """The `Remaining` kept for the budget tuple `budget` (one per distinct tuple)."""
        known = self.kept.get(budget)
        if known is None:
            fair, unfair = split(budget)
            uid = self.unfair_ids.get(unfair)
            if uid is None:
                uid = self.unfair_ids[unfair] = len(self.unfair_ids)
                self.unfair_hashes.append(hash(unfair))
            known = self.kept[budget] = Remaining(budget, fair, unfair, uid)
        return known

    def spend(self, left: Remaining, action: object) -> Remaining:
        """`split(spend(left.budget, action))`, remembered in `left` per action kind that
        spends a budget (`left` itself for any other kind: a `Remaining` never refers to
        itself, so budgets dropped are freed without the cyclic collector)."""
        kind = type(action)
        known = left.after.get(kind)
        if known is None:
            if kind not in _SPEND:
                return left
            known = left.after[kind] = self.split(spend(left.budget, action))
        return known

    def fingerprint(self, class_fp: int, left: Remaining) -> int:
        """hash((class_fp, left.unfair)), a state's fingerprint from its class's and its unfair
        budgets: compiled, from the tuple's hash kept with its id, no pair built and the
        budgets not hashed again."""
        if th.NATIVE:
            return th.pair(class_fp, self.unfair_hashes[left.uid])
        return hash((class_fp, left.unfair))


class Dominance:
    """Per class of states (an index), the unfair budgets of its reached states that no other
    reached state of the class covers: one tuple, or a list of them."""

    def __init__(self) -> None:
        self.known: List[Any] = []

    def add_class(self, unfair: Budget) -> None:
        """A new class, its first state's unfair budgets `unfair`."""
        self.known.append(unfair)

    def covered(self, klass: int, unfair: Budget) -> bool:
        """A reached state of `klass` covers `unfair`."""
        known = self.known[klass]
        if type(known) is tuple:
            return covers(known, unfair)
        for other in known:
            if covers(other, unfair):
                return True
        return False

    def add(self, klass: int, unfair: Budget) -> None:
        """A reached state of `klass` with unfair budgets `unfair`, which none covers."""
        known = self.known[klass]
        if type(known) is tuple:
            known = [known]
        kept = [other for other in known if not covers(unfair, other)]
        self.known[klass] = unfair if not kept else kept + [unfair]
