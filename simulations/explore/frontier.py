"""One breadth-first search, expanded a depth layer at a time, and the transitions that searches
of one deployment under several gates share.

A `Search` keeps only fingerprints, parent pointers and compact arrays for the liveness check
for the states it visited (plus its frontier). A visited state is found through its class (one
entry per class in a `FingerprintIndex`, `classes`): the class's first state, or for the rarer
other states of a class a dict (`others`), so a state costs an entry only as the first of its
class.
`expand_layer(depth)` expands every frontier state at that depth in the order they were
reached, so a search driven layer by layer visits, finds and records exactly what it would in
one loop.

Searches of one scope under several gates share the outcomes of a layer (`shared.py`).
"""
from __future__ import annotations

from typing import Any, Dict, Final, List, Optional, Set, Tuple, cast, final

from mypy_extensions import i64

from model import (
    Decision,
    GateError,
    Reconnect,
    ResumeRequest,
    ServerView,
    enabled_actions,
    initial_state,
    question_of,
)
from model.policies import Gate, decide
from model.properties import PROPERTIES, Hit, Property, add_hits
from model.resume import waiting_cause
from model.state import State
from model.symmetry import Canonicalizer, Parts
from model.transitions import successor

from .budgets import Budget, Budgets, Dominance, Remaining
from .columns import Int32Column, IntColumn
from .findings import Findings, path_to
from .fingerprint_index import FingerprintIndex
from .interning import Interner
from .liveness import LivenessGraph, is_fair
from .scope import Scope
from .shared import Known, Outcome, ReconnectShare, SharedTransitions

#: why some client waits in a state (the liveness property's `waiting`), called directly
assert next(p.waiting for p in PROPERTIES if p.kind == "liveness") is waiting_cause

#: unfair ids are below this (31 bits): `_other_key` and `Search.class_first` pack them
UID_LIMIT: Final = 1 << 31
_UID_MASK: Final = UID_LIMIT - 1
#: node indices are below this: `Search.parent` is a 32-bit column
NODE_LIMIT: Final = 1 << 31


def _other_key(klass: int, uid: int) -> int:
    """The key of `Search.others` for a node of class `klass` with unfair budgets of id `uid`
    (below UID_LIMIT), one int: no tuple built or hashed."""
    return (klass << 31) | uid


@final
class Entry:
    """A state waiting in the frontier: the state, its budgets left and fingerprint parts, its
    node index, depth, fingerprint, class index and the renaming its class fingerprint is the
    hash under (carried along, not read back from the columns). Compiled, its five ints are
    held unboxed: about 100 bytes an entry fewer than the tuple it replaces, which held an
    int object for each large one."""
    __slots__ = ("state", "budget", "parts", "node", "depth", "fp", "klass", "renaming")

    def __init__(self, state: State, budget: Remaining, parts: Parts, node: i64, depth: i64,
                 fp: i64, klass: i64, renaming: i64) -> None:
        self.state = state
        self.budget = budget
        self.parts = parts
        self.node = node
        self.depth = depth
        self.fp = fp
        self.klass = klass
        self.renaming = renaming


class Search:
    """One breadth-first search: the frontier, the visited set, and what its transitions found
    (`findings`, into `result`, an `Exploration`)."""

    def __init__(self, scope: Scope, gate: Gate, symmetry: bool, graph: bool, result: Any,
                 max_states: Optional[int] = None, max_depth: Optional[int] = None,
                 subsumption: bool = True, budgets: Optional[Budgets] = None):
        """`budgets`: the `Budgets` of the `SharedTransitions` this search will share (its
        own, new, if none)."""
        self.scope, self.gate, self.config = scope, gate, scope.system
        self.max_states, self.max_depth = max_states, max_depth
        # a graph is the whole state graph: no state is skipped for it
        self.subsumption = result.subsumption = subsumption and not graph
        self.canon = Canonicalizer(self.config, symmetry)
        self.result = result
        self.transitions = 0                 # counted here, copied into `result` by `close`
        self.depth = 0
        # The visited set, per node index (compact columns): its fingerprint, its parent's
        # index and the action taken there (an index into `actions`, each distinct action kept
        # once). A node is found through its class (`node_of`): the class's first node, else
        # `others`. Per class index: its first node and that node's unfair id (in `budgets`),
        # one int (`first << 31 | uid`), so finding a class's first node is one read.
        self.fps = IntColumn()
        self.class_first = IntColumn()
        self.others: Dict[int, int] = {}    # _other_key(class, unfair id) -> node index,
        #                                     for every node not first in its class
        self.parent = Int32Column()
        self.via = Int32Column()
        self.actions: List[object] = []
        self.action_ids: Dict[object, int] = {}
        self.findings = Findings(result, self.config, self.fps, self.parent, self.via,
                                 self.actions)
        # Classes (a model state with its fair budgets: budgets.py): class fingerprint ->
        # class index; the liveness graph is over classes.
        self.classes = FingerprintIndex()
        self.live = LivenessGraph()
        self.dominance = Dominance()
        self.subsumed: Set[int] = set()      # fingerprints of the states skipped: covered
        #                                      within their class (once covered, always)
        self.kinds: Dict[type, int] = {}     # transitions per action kind
        self.budgets = budgets if budgets is not None else Budgets()
        # the layer being expanded, last entry first (a list popped from its end, reversed
        # when it becomes the frontier), and the next layer in the order its states were reached
        self.frontier: List[Entry] = []
        self.following: List[Entry] = []
        self.interner = Interner()
        self.cut = False
        self.graph: Any = None
        if graph:
            import networkx as nx
            self.graph = result.graph = nx.DiGraph()
            result.parents = {}
        state0 = initial_state(self.config)
        left0 = self.budgets.split(scope.budgets())
        class0, renaming0, parts0 = self.canon.placed(state0, left0.fair)
        fp0 = self.budgets.fingerprint(class0, left0)
        idx0 = self.add_node(fp0, class0, left0.unfair, left0.uid, state0, -1, None, 0)
        self.frontier.append(Entry(state0, left0, parts0, idx0, 0, fp0,
                                   self.classes.get(class0), renaming0))

    @property
    def active(self) -> bool:
        """Something is left to expand."""
        return bool(self.frontier) and not self.cut

    def add_node(self, fp: int, class_fp: int, unfair: Budget, uid: int, state: State,
                 parent: int, action: object, depth: int) -> int:
        """Record a newly reached state (parent -1: the initial state) of the class
        `class_fp`, with unfair budgets `unfair` (of id `uid`); returns its index."""
        if not 0 <= uid < UID_LIMIT:
            raise OverflowError(f"unfair budgets id {uid} is not below 2**31")
        idx = len(self.fps)
        if idx >= NODE_LIMIT:
            raise OverflowError(f"{NODE_LIMIT:,} states: too many for the visited set's "
                                "32-bit parent column")
        klass = self.classes.get(class_fp)
        if klass < 0:
            klass = self.live.add_class(waiting_cause(state, self.config))
            self.classes.put(class_fp, klass)
            self.class_first.append((idx << 31) | uid)
            if self.subsumption:
                self.dominance.add_class(unfair)
        else:
            self.others[_other_key(klass, uid)] = idx
            if self.subsumption:
                self.dominance.add(klass, unfair)
        self.fps.append(fp)
        self.parent.append(parent)
        if action is None:
            self.via.append(-1)
        else:
            code = self.action_ids.get(action)
            if code is None:
                code = self.action_ids[action] = len(self.actions)
                self.actions.append(action)
            self.via.append(code)
        if self.graph is not None:
            self.graph.add_node(fp, depth=depth, waiting=self.live.waiting(klass))
            self.result.parents[fp] = None if parent < 0 else (self.fps[parent], action)
        return idx

    def node_of(self, klass: int, uid: int) -> int:
        """The index of the visited node of class `klass` with the unfair budgets of id `uid`;
        -1 when there is none (or no class: `klass` -1)."""
        if klass < 0:
            return -1
        first: int = self.class_first[klass]
        if first & _UID_MASK == uid:
            return first >> 31
        return self.others.get(_other_key(klass, uid), -1)

    def first_of(self, klass: int) -> int:
        """The index of the first node (in breadth-first order) of class `klass`."""
        first: int = self.class_first[klass]
        return first >> 31

    def visited(self, class_fp: int, uid: int) -> bool:
        """A node of class `class_fp` with the unfair budgets of id `uid` was visited."""
        return self.node_of(self.classes.get(class_fp, -1), uid) >= 0

    def path(self, idx: int) -> List[object]:
        """The actions from the initial state to node `idx`."""
        return path_to(idx, self.parent, self.via, self.actions)

    def _outcome(self, state: State, budget: Remaining, parts: Parts, action: object, u: int,
                 fp: i64, decided: Optional[Decision] = None,
                 question: Optional[Tuple[ResumeRequest, ServerView]] = None
                 ) -> Optional[Outcome]:
        """Apply `action` (a Reconnect with its gate's decision `decided` on `question`, when
        given); None if the gate raised (recorded: the search is then incomplete)."""
        try:
            new_state, events = successor(state, action, self.config, self.gate, decided,
                                          question)
        except GateError as exc:
            self.findings.gate_raised(exc, u, action, fp)
            return None
        spent = self.budgets.spend(budget, action)
        hits: List[Tuple[Property, Hit]] = []
        for event in events:
            add_hits(event, hits)   # the pairs as they are, into one list for the transition
        class_fp, renaming, new_parts = self.canon.placed(new_state, spent.fair, state, parts)
        return Outcome(new_state, spent, self.budgets.fingerprint(class_fp, spent), new_parts,
                       hits, class_fp, renaming)

    def _shared_reconnect(self, state: State, budget: Remaining, parts: Parts, action: Reconnect,
                          u: int, fp: i64, known: Known, k: int,
                          shared: SharedTransitions) -> Optional[Outcome]:
        """A Reconnect's outcome under this search's gate: the one another search computed for
        a decision with the same consequence, else computed here and offered; None if the gate
        raised. The gate is asked the question the first search to get here built."""
        share: Optional[ReconnectShare] = known[k]
        if share is None:
            request, view = question_of(state, action, self.config)
            share = known[k] = ReconnectShare(request, view)
        try:
            decision = decide(self.gate, share.request, share.view)
        except GateError as exc:
            self.findings.gate_raised(exc, u, action, fp)
            return None
        consequence = decision.consequence()
        offered = share.outcomes.get(consequence)
        if self.stale(offered):
            outcome = self._outcome(state, budget, parts, action, u, fp, decision,
                                    (share.request, share.view))
            if outcome is not None:
                share.outcomes[consequence] = self.offer(outcome)
                shared.computed += 1
            return outcome
        shared.hits += 1
        shared.reconnects_shared += 1
        return offered

    def stale(self, offered: Optional[Outcome]) -> bool:
        """Nothing was offered, or only without the successor, which is new to this search:
        compute the outcome here."""
        return offered is None or (offered.state is None
                                   and not self.visited(offered.class_fp, offered.spent.uid))

    def offer(self, outcome: Outcome) -> Outcome:
        """`outcome` as the layer keeps it for the other searches: without its successor
        where this search had visited it."""
        if self.visited(outcome.class_fp, outcome.spent.uid):
            return outcome.without_successor()
        return outcome

    def expand_layer(self, depth: int, shared: Optional[SharedTransitions] = None) -> None:
        """Expand every frontier state at `depth`, in the order they were reached; with
        `shared`, take the outcomes other searches of this scope computed for the same state at
        this depth (a Reconnect's where their gates' decisions had the same consequence), and
        offer the ones computed here."""
        frontier, result, fps, live = self.frontier, self.result, self.fps, self.live
        kinds, classes = self.kinds, self.classes
        interner = shared.interner if shared is not None else self.interner
        subsumption, dominance = self.subsumption, self.dominance
        # the layer's shared outcomes (a search without them never reads this empty one)
        pool = shared if shared is not None else SharedTransitions()
        if shared is not None:
            if shared.budgets is not self.budgets:
                raise ValueError("searches that share transitions must be built with the "
                                 "SharedTransitions' budgets (Search(..., budgets=...))")
            shared.layer(depth)
        following = self.following
        if frontier and frontier[-1].depth != depth:
            return      # (not this search's next layer)
        while frontier and not self.cut:
            head = frontier.pop()
            state, budget, parts = head.state, head.budget, head.parts
            u, fp, uc, renaming = head.node, head.fp, head.klass, head.renaming
            self.depth = depth
            if self.max_depth is not None and depth >= self.max_depth:
                if not any("depth" in why for why in result.incomplete):
                    result.incomplete.append(f"depth budget ({self.max_depth} steps) hit")
                continue
            whole = True
            # a class's fair edges are the same from each of its states: recorded once
            fair_edges = not live.done[uc]
            without = budget.without
            known: Optional[Known] = None
            # the actions as objects: compiled, an item read as an `Action` (a union of every
            # kind) is checked against each kind in turn, a subtype test per kind it is not
            actions: List[Any]
            if shared is None:
                actions = cast(List[Any], enabled_actions(state, self.config, without))
            else:
                # the fingerprint with the renaming it was taken under names the state itself
                # (`Canonicalizer.placed`): no hash of the state or its Parts
                key = (fp, renaming)
                entry = shared.outcomes.get(key)
                if entry is None:
                    actions = cast(List[Any], enabled_actions(state, self.config, without))
                    known = [None] * len(actions)
                    shared.outcomes[key] = (actions, known)
                else:
                    actions, known = entry
            outcome: Optional[Outcome]
            for k, action in enumerate(actions):
                if known is None:
                    outcome = self._outcome(state, budget, parts, action, u, fp)
                elif type(action) is Reconnect:
                    outcome = self._shared_reconnect(state, budget, parts, action, u, fp,
                                                     known, k, pool)
                else:
                    outcome = known[k]
                    if self.stale(outcome):
                        outcome = self._outcome(state, budget, parts, action, u, fp)
                        known[k] = None if outcome is None else self.offer(outcome)
                        pool.computed += 1
                    else:
                        pool.hits += 1
                if outcome is None:
                    whole = False
                    continue
                new_fp, class_fp, spent = outcome.fp, outcome.class_fp, outcome.spent
                unfair, uid = spent.unfair, spent.uid
                self.transitions += 1
                kind = type(action)
                kinds[kind] = kinds.get(kind, 0) + 1
                if outcome.hits:
                    self.findings.record(u, action, outcome.hits)
                if self.graph is not None:
                    self.graph.add_edge(fp, new_fp, action=type(action).__name__)
                vc = classes.get(class_fp, -1)
                v = self.node_of(vc, uid)
                if v < 0:
                    if subsumption and vc >= 0 and dominance.covered(vc, unfair):
                        self.subsumed.add(new_fp)   # a reached state of its class covers it
                    else:
                        if self.max_states is not None and len(fps) >= self.max_states:
                            result.incomplete.append(
                                f"state budget ({self.max_states:,} states) hit")
                            whole, self.cut = False, True
                            break
                        new_state, new_parts = outcome.state, outcome.parts
                        assert new_state is not None and new_parts is not None   # (`offer`)
                        v = self.add_node(new_fp, class_fp, unfair, uid, new_state, u,
                                          action, depth + 1)
                        if vc < 0:
                            vc = classes.get(class_fp)
                        # one object per equal part, kept in the outcome other searches share
                        new_state = outcome.state = interner.state(new_state, state)
                        new_parts = outcome.parts = interner.parts(new_parts, parts)
                        following.append(Entry(new_state, spent, new_parts, v, depth + 1,
                                               new_fp, vc, outcome.renaming))
                if fair_edges and is_fair(action, state):
                    live.add_edge(uc, vc)
            if whole:
                live.expanded(uc)
        if not frontier:    # the layer is done: the next one is the frontier, in order
            following.reverse()
            self.frontier, self.following = following, frontier

    def close(self) -> None:
        """Copy what the search counted into its result (before the liveness verdict)."""
        result = self.result
        result.transitions = self.transitions
        result.depth = self.depth
        result.states = len(self.fps)
        result.subsumed = len(self.subsumed)
