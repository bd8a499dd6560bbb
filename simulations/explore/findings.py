"""What one search makes of its transitions' hits, into its `Exploration`: each sometimes
situation seen, each cost's first trace, each safety property's first trace per cause (and its
first of any cause), and the first transition its gate raised on.

A trace is found from the search's visited set only when something is first recorded; a hit
with nothing new to record (a situation seen, a cost kept, a cause found) costs a set lookup by
name, no tuple built. `Findings` holds the search's columns, not the search: no reference
cycle, so the search and all it holds are freed when it is dropped, with the cyclic collector
paused as searches run.
"""
from __future__ import annotations

from typing import Any, Dict, Final, List, Optional, Set, Tuple

from model import GateError, SystemConfig
from model.properties import COST, PROPERTIES, SAFETY, SOMETIMES, Hit, Property

from .columns import Int32Column, IntColumn
from .verdict import Finding

#: the property kinds `record` tells apart, as this module's own constants: compiled, a constant
#: of another module is looked up in that module's namespace at every read (a dict lookup per
#: hit, 2% of a search of several gates)
_SOMETIMES: Final = SOMETIMES
_COST: Final = COST
_SAFETY: Final = SAFETY


def path_to(idx: int, parent: Int32Column, via: Int32Column, actions: List[object]) -> List[object]:
    """The actions from the initial state to node `idx` of a search whose columns are `parent`
    (each node's parent, -1 for the initial state) and `via` (the index in `actions` of the
    action taken from it)."""
    path: List[object] = []
    while parent[idx] >= 0:
        path.append(actions[via[idx]])
        idx = parent[idx]
    return path[::-1]


class Findings:
    """The bookkeeping of one search's findings, over its columns (`fps`: each node's
    fingerprint; `parent`, `via`, `actions`: see `path_to`). Invariant: a name is in `settled`
    once its situation was seen or its cost kept, and `causes[name]` holds the causes of
    `result.by_cause` for that safety property."""

    def __init__(self, result: Any, config: SystemConfig, fps: IntColumn, parent: Int32Column,
                 via: Int32Column, actions: List[object]) -> None:
        self.result = result
        result.sometimes = {p.name: (False if p.applies(config) else None)
                            for p in PROPERTIES if p.kind == SOMETIMES}
        # the result's own dicts, typed: `record` fills them
        self.sometimes: Dict[str, Optional[bool]] = result.sometimes
        self.costs: Dict[str, Finding] = result.costs
        self.by_cause: Dict[Tuple[str, str], Finding] = result.by_cause
        self.violations: Dict[str, Finding] = result.violations
        self.settled: Set[str] = set()
        self.causes: Dict[str, Set[str]] = {}
        self.fps = fps
        self.parent = parent
        self.via = via
        self.actions = actions

    def path(self, idx: int) -> List[object]:
        """The actions from the initial state to node `idx`."""
        return path_to(idx, self.parent, self.via, self.actions)

    def record(self, u: int, action: object, hits: List[Tuple[Property, Hit]]) -> None:
        """Findings, costs and sometimes situations of one transition from node `u`."""
        for prop, hit in hits:
            name = prop.name
            if name in self.settled:
                continue
            kind = prop.kind
            if kind == _SOMETIMES:
                self.sometimes[name] = True
                self.settled.add(name)
            elif kind == _COST:
                if name not in self.costs:
                    self.costs[name] = Finding(name, hit.detail, self.path(u) + [action],
                                               self.fps[u], hit.cause)
                self.settled.add(name)
            elif kind == _SAFETY:   # judged or diagnostic: findings_of's safety ones
                self._found(name, hit.cause, hit.detail, u, action)

    def _found(self, name: str, cause: str, detail: str, u: int, action: object) -> None:
        causes = self.causes.get(name)
        if causes is None:
            causes = self.causes[name] = set()
        elif cause in causes:
            return
        causes.add(cause)
        finding = Finding(name, detail, self.path(u) + [action], self.fps[u], cause)
        self.by_cause[(name, cause)] = finding
        self.violations.setdefault(name, finding)

    def gate_raised(self, exc: GateError, u: int, action: object, fp: int) -> None:
        """Record the first transition the gate raised on (the search is then incomplete)."""
        result = self.result
        if result.gate_error is None:
            result.gate_error = Finding("gate_error", str(exc), self.path(u) + [action], fp)
            result.incomplete.append(f"the gate raised ({exc}); those transitions were "
                                     "skipped")
