"""Canonical fingerprints with symmetry reduction over interchangeable clients and instances.

A fingerprint is the smallest hash of the state under every renaming of clients (slots,
idents, session owners) and, where the load balancer treats instances alike
(`random`, `least_connections`), every renaming of instances. Two states that differ only by
such a renaming get the same fingerprint, so the explorer visits one of them. Like TLC, a
fingerprint is a 64-bit hash: distinct states colliding is possible in principle and
vanishingly unlikely at these scopes.
"""
from __future__ import annotations

from itertools import permutations
from typing import List, Sequence, Tuple

from model import SystemConfig
from model.state import Client, Instance, LiveSession, SessionRecord, State, Stream

SYMMETRIC_LBS = ("random", "least_connections")


# Renaming runs for every successor of every state, so it builds tuples directly
# (tuple.__new__) rather than through NamedTuple._replace; the field positions it relies on are
# checked by _FIELDS_AT below when the module loads.
_new = tuple.__new__
_FIELDS_AT = {(Client, "ident"): -1, (Client, "stream"): 4, (Stream, "instance"): 0,
              (LiveSession, "client"): 0,
              (SessionRecord, "client"): 0}
for (_kind, _name), _index in _FIELDS_AT.items():
    assert _kind._fields[_index] == _name, (_kind, _name)


def _client(c: Client, cmap, imap) -> Client:
    stream = c[4]  # Client.stream
    if stream is not None:
        stream = _new(Stream, (imap[stream[0]],) + stream[1:])
    return _new(Client, c[:4] + (stream,) + c[5:-1] + (cmap[c[-1]],))


def _instance(inst: Instance, cmap) -> Instance:
    sessions = tuple((t, _new(LiveSession, (cmap[s[0]],) + s[1:])) for t, s in inst.sessions)
    return _new(Instance, (inst[0], inst[1], sessions) + inst[3:])


def rename(state: State, cmap: Sequence[int], imap: Sequence[int]) -> State:
    """The state with client i called cmap[i] and instance j called imap[j] everywhere."""
    clients: List = [None] * len(state.clients)
    for c, client in enumerate(state.clients):
        clients[cmap[c]] = _client(client, cmap, imap)
    instances: List = [None] * len(state.instances)
    for i, inst in enumerate(state.instances):
        instances[imap[i]] = _instance(inst, cmap)
    return state._replace(
        clients=tuple(clients), instances=tuple(instances),
        registry=tuple((t, _new(SessionRecord, (cmap[r[0]],) + r[1:]))
                       for t, r in state.registry),
        owners=tuple((t, cmap[c]) for t, c in state.owners),
        affinity=tuple((t, imap[i]) for t, i in state.affinity))


class Canonicalizer:
    """Fingerprints for one configuration: which renamings are symmetries of it."""

    def __init__(self, config: SystemConfig, symmetry: bool = True):
        n_c, n_i = config.clients, config.instances
        client_perms = list(permutations(range(n_c))) if symmetry else [tuple(range(n_c))]
        instance_perms = list(permutations(range(n_i))) \
            if symmetry and config.lb in SYMMETRIC_LBS else [tuple(range(n_i))]
        identity = (tuple(range(n_c)), tuple(range(n_i)))
        self.renamings: List[Tuple[Tuple[int, ...], Tuple[int, ...]]] = \
            [(c, i) for c in client_perms for i in instance_perms if (c, i) != identity]

    def fingerprint(self, state: State, extra: tuple = ()) -> int:
        best = hash((state, extra))
        for cmap, imap in self.renamings:
            h = hash((rename(state, cmap, imap), extra))
            if h < best:
                best = h
        return best
