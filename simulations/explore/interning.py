"""One object per equal part of the states the frontier holds.

A successor shares with its parent every part its action did not touch, but two states reached
from different parents hold equal parts as different objects. At the widest layer of the
two-instance scope, 35k client records are 1,100 distinct values and 65k buffers are 48.
`Interner.state` swaps each part of a new frontier state for the first object equal to it that
the search met, so the frontier keeps each state's own record and one copy of each part.

Parts are records and tuples of them: compared and hashed by value (`model.record`), as the
visited set compares states. An interned state is therefore equal to the state it replaces,
hashes the same, and makes the same transitions; only which objects hold its values changes.
`model.parts.parts_of` reuses a parent's part where the successor holds the very same object,
which an interned parent's successors do as before.

Invariant: `state(s, parent)` equals `s`; each of its parts is either `parent`'s own object (the
parent was interned when it was reached) or the interner's object for that value. The same for
`parts(p, parent_parts)`. Switched off (`INTERNING = False`, for tests comparing the results),
both return their argument.
"""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

from model.parts import Parts
from model.state import State

#: intern the frontier's states and parts (a test may switch it off: read on every call)
INTERNING = True


class Interner:
    """Per value, the first object equal to it that was offered."""

    def __init__(self) -> None:
        self.table: Dict[Any, Any] = {}

    def one(self, value: Any) -> Any:
        """The object kept for `value`'s value (`value` itself, the first time)."""
        table = self.table
        kept = table.get(value)
        if kept is None:
            table[value] = value
            return value
        return kept

    def _sequence(self, items: Tuple[Any, ...], before: Tuple[Any, ...]) -> Tuple[Any, ...]:
        """`items`, each element that is not `before`'s at its position interned, and then the
        tuple itself (`items` is returned where `before` is the very same tuple)."""
        if items is before:
            return items
        aligned = len(items) == len(before)
        changed = False
        rebuilt: List[Any] = []
        for k in range(len(items)):
            item = items[k]
            if not aligned or item is not before[k]:
                kept = self.one(item)
                if kept is not item:
                    changed = True
                    item = kept
            rebuilt.append(item)
        return self.one(tuple(rebuilt) if changed else items)

    def _field(self, value: Any, before: Any) -> Any:
        """`value` interned, unless it is the very object `before`."""
        return value if value is before else self.one(value)

    def state(self, state: State, parent: State) -> State:
        """`state` with each part it does not share with `parent` replaced by the interned
        object equal to it (a new State record only where some part was replaced)."""
        if not INTERNING:
            return state
        clients = self._sequence(state.clients, parent.clients)
        instances = self._sequence(state.instances, parent.instances)
        registry = self._field(state.registry, parent.registry)
        buffers = self._field(state.buffers, parent.buffers)
        affinity = self._field(state.affinity, parent.affinity)
        owners = self._field(state.owners, parent.owners)
        records = self._field(state.records, parent.records)
        if clients is state.clients and instances is state.instances and \
                registry is state.registry and buffers is state.buffers and \
                affinity is state.affinity and owners is state.owners and \
                records is state.records:
            return state
        return state.replace(clients=clients, instances=instances, registry=registry,
                             buffers=buffers, affinity=affinity, owners=owners, records=records)

    def parts(self, parts: Parts, parent: Parts) -> Parts:
        """`parts` with its client parts, instance parts and naming interned where they are
        not `parent`'s own (a new Parts record only where one was replaced)."""
        if not INTERNING:
            return parts
        clients = self._sequence(parts.clients, parent.clients)
        instances = self._sequence(parts.instances, parent.instances)
        naming = self._field(parts.naming, parent.naming)
        if clients is parts.clients and instances is parts.instances and \
                naming is parts.naming:
            return parts
        return Parts(clients, instances, parts.plain, naming, parts.pointer)
