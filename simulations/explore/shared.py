"""The transitions that searches of one deployment under several gates share.

Searches of the same scope under different gates (the verification matrix's cells of one
deployment) reach many of the same states at the same depth: everything before the first
resumption, and whatever the gates decide alike. Every action but `Reconnect` is decided without
the gate, so its outcome (successor state, its property hits, the successor's fingerprint) is a
function of the state and the budgets left; a `Reconnect`'s is a function of those and of the
consequence of the gate's decision (`Decision.consequence`, applied with `model.apply(...,
decided=)`). `SharedTransitions` keeps the outcomes for the layer being expanded, keyed by the
state's fingerprint and the renaming its class fingerprint was taken under
(`Canonicalizer.placed`: the fingerprint is of its class up to symmetry, and two states one
renaming apart share it, not the renaming that takes each to the same hash), and a search that
expands a state another search expanded at the same depth takes them instead of computing them
again. Each search still asks its own gate at every `Reconnect`, with the question (the request
and the instance's view) built once for all of them (`ReconnectShare`), takes an outcome only
where its gate's decision has the same consequence, and keeps its own visited set, order, traces
and verdicts, so what it finds is what it finds alone (a test compares the two). A layer keeps a
successor state alive only if the search that computed it had not visited it (`Outcome`): a
successor some other search holds in its frontier anyway costs nothing to keep, one every search
had seen would be kept only for the rare search to which it is new, and that search computes it
again.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from model import ResumeRequest, ServerView
from model.properties import Hit, Property
from model.state import State
from model.symmetry import Parts

from .budgets import Budgets, Remaining
from .interning import Interner


class Outcome:
    """What a transition led to: the successor, its budgets left (`spent`), its fingerprint,
    its fingerprint parts, the (property, hit) pairs of its events, its class's fingerprint
    (its unfair budgets and their id are `spent`'s, in the searches' shared `Budgets`), and the
    renaming the class fingerprint was taken under (an index in `Canonicalizer.renamings`). As
    a layer's searches
    share it (`Search.offer`), `state` and `parts` are None when the search that computed it
    had visited the successor already, so that a layer keeps alive only successors some
    frontier holds anyway; a search for which such a successor is new computes the outcome
    again. A class, not a tuple: compiled, every read of a tuple type's item from a list or a
    dict checks and unpacks all of them."""

    __slots__ = ("state", "spent", "fp", "parts", "hits", "class_fp", "renaming")

    def __init__(self, state: Optional[State], spent: Remaining, fp: int, parts: Optional[Parts],
                 hits: List[Tuple[Property, Hit]], class_fp: int, renaming: int) -> None:
        self.state = state
        self.spent = spent
        self.fp = fp
        self.parts = parts
        self.hits = hits
        self.class_fp = class_fp
        self.renaming = renaming

    def without_successor(self) -> Outcome:
        """The same outcome, its successor and parts left out (None)."""
        return Outcome(None, self.spent, self.fp, None, self.hits, self.class_fp,
                       self.renaming)


#: what the searches of one layer know of a state's actions: per action its outcome (None until
#: a search computed it) or, for a Reconnect, a `ReconnectShare` (None until a search asked)
Known = List[Any]


class ReconnectShare:
    """What the searches of a layer share of one Reconnect in one state: the question every gate
    is asked (`model.question_of`), and the outcome per consequence of a gate's decision."""

    def __init__(self, request: ResumeRequest, view: ServerView) -> None:
        self.request = request
        self.view = view
        self.outcomes: Dict[Tuple[Any, ...], Outcome] = {}


class SharedTransitions:
    """The outcomes of the layer being expanded, shared by searches of one scope: (fingerprint,
    renaming) of a state -> (its enabled actions, what is known of each (`Known`)).
    Cleared at every new depth, so it holds one layer at most. The searches that share it share
    its `budgets` too (each is built with them): an outcome names its unfair budgets by their
    id there. They share one `Interner` too, so a successor several of their frontiers hold is
    one object."""

    def __init__(self, budgets: Optional[Budgets] = None) -> None:
        self.budgets = budgets if budgets is not None else Budgets()
        self.depth = -1
        self.outcomes: Dict[Tuple[int, int], Tuple[List[Any], Known]] = {}   # (actions, ...)
        self.hits = 0          # outcomes taken from another search
        self.reconnects_shared = 0   # of which Reconnects (another gate decided alike)
        self.computed = 0      # outcomes computed and offered
        self.interner = Interner()

    def layer(self, depth: int) -> None:
        if depth != self.depth:
            self.depth, self.outcomes = depth, {}
