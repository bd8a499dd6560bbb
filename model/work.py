"""A session's work: where a (re-)initialized session starts it, whether a client has it all,
whether some instance can emit more of it, and which sessions are live to emit it."""
from __future__ import annotations

from typing import List, Optional

from .config import SystemConfig
from .state import State, held_by, holding


def work_start(config: SystemConfig, client) -> int:
    """First message of the first call whose result the client has not applied: the work a new
    session runs when the client (re-)initializes."""
    done = {k for k, _ in client.applied}
    for call_first in range(0, config.messages_per_session, config.messages_per_call):
        result = min(call_first + config.messages_per_call, config.messages_per_session) - 1
        if result not in done:
            return call_first
    return config.messages_per_session


def work_done(config: SystemConfig, client) -> bool:
    """Every message of the client's work is applied or known lost."""
    done = {k for k, _ in client.applied} | client.missed
    return all(m in done for m in range(config.messages_per_session))


def emit_possible(state: State, config: SystemConfig, token: int,
                  on: Optional[int] = None) -> bool:
    """Some instance (`on`, if given) runs session `token` at its current generation and has
    work left."""
    if on is not None:
        live = held_by(state, config, on, token)
    else:
        live = holding(state, config, token)[1]
    return live is not None and live.next_msg < config.messages_per_session


def live_tokens(state: State, config: SystemConfig) -> List[int]:
    """Sessions live in a registry (shared) or in some process (local store), sorted; on a
    stateless transport, the requests running in some process."""
    if config.store == "shared" and config.transport == "sessions":
        return [token for token, _ in state.registry]
    return sorted({token for inst in state.instances for token, _ in inst.sessions})
