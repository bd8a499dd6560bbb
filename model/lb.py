"""Load-balancer routing: which instances a request may be sent to.

Draining and stopped instances receive no new requests. A deterministic LB kind returns one
choice; `random` and the ties of `least_connections` return several, and the engine picks (the
explorer tries each, the DES draws one). `sticky` keeps session affinity on `Mcp-Session-Id`: it
learns which instance answered initialize and sends the session there while that instance is up;
otherwise it hashes the id onto the up instances (rendezvous hashing) and remembers the choice.
A request without a session id (initialize) goes round-robin.
"""
from __future__ import annotations

from typing import Optional, Tuple

from .config import SystemConfig
from .pairs import tget, tset
from .state import State


def _mix(token: int, instance: int) -> int:
    """A fixed integer hash of (token, instance); the same in every process."""
    x = (token * 0x9E3779B1 + instance * 0x85EBCA77 + 0x27D4EB2F) & 0xFFFFFFFF
    x ^= x >> 15
    x = (x * 0x2C1B3C6D) & 0xFFFFFFFF
    x ^= x >> 12
    x = (x * 0x297A2D39) & 0xFFFFFFFF
    return x ^ (x >> 15)


def up_instances(state: State) -> Tuple[int, ...]:
    return tuple(i for i, inst in enumerate(state.instances) if inst.status == "up")


def _round_robin(state: State, up: Tuple[int, ...]) -> Tuple[int, ...]:
    n = len(state.instances)
    for step in range(n):
        candidate = (state.rr + step) % n
        if candidate in up:
            return (candidate,)
    return ()


def route_choices(state: State, config: SystemConfig, token: Optional[int]) -> Tuple[int, ...]:
    """Instances the LB may route a request for session `token` (None: initialize) to."""
    up = up_instances(state)
    if not up:
        return ()
    if config.lb == "random":
        return up
    if config.lb == "least_connections":
        load = {i: 0 for i in up}
        for client in state.clients:
            stream = client.stream
            if client.phase == "open" and stream is not None and stream.instance in load:
                load[stream.instance] += 1
        least = min(load.values())
        return tuple(i for i in up if load[i] == least)
    if config.lb == "sticky" and token is not None:
        known = tget(state.affinity, token)
        if known in up:
            return (known,)
        return (max(up, key=lambda i: (_mix(token, i), -i)),)
    return _round_robin(state, up)


def advance(state: State, config: SystemConfig, token: int, chosen: int, init: bool) -> State:
    """The LB state after routing a request of session `token` (for initialize: the session it
    created) to `chosen`: the round-robin pointer moves, a sticky LB records the affinity."""
    if config.lb == "round_robin" or (config.lb == "sticky" and init):
        state = state.replace(rr=(chosen + 1) % len(state.instances))
    if config.lb == "sticky" and tget(state.affinity, token) != chosen:
        state = state.replace(affinity=tset(state.affinity, token, chosen))
    return state
