"""A bounded scope for exhaustive exploration: the deployment, the work, and a budget per fault.

Faults and client behaviours that could repeat forever are budgeted (each use spends one);
delivery, emission, reconnection and instance starts are free. The default scope reaches every
"sometimes" situation of the property registry under every built-in policy: a resumption, an
admitted one, a restart, a session whose state was lost, a truncated buffer, a gap, a client
restart with a stale persisted cursor and a foreign cursor.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Dict, Tuple

from model import (
    ClientRestart,
    Compact,
    ConfigError,
    Disconnect,
    Evict,
    Expire,
    ForeignCursor,
    HalfOpen,
    IdleTimeout,
    Init,
    Persist,
    Stop,
    SystemConfig,
)

#: budget name -> the action kind that spends it
BUDGETED = {
    "restarts": Stop,            # an instance stops (after a drain) or crashes; it may start again
    "drops": Disconnect,         # the network drops a client's stream
    "half_opens": HalfOpen,      # a client's stream dies without the server noticing
    "client_restarts": ClientRestart,
    "evictions": Evict,          # the store expires a session
    "compactions": Compact,      # a buffer drops its oldest event
    "idle_timeouts": IdleTimeout,
    "foreign_cursors": ForeignCursor,
    "persists": Persist,         # the client persists its cursor (persistence lags)
    "sessions": Init,            # initialize requests, first ones included (stateless: every
    #                              request, re-issues included)
    "expiries": Expire,          # an execution record (stateless+idempotency) or a task
    #                              record (tasks) reaches its TTL
}
BUDGET_NAMES = tuple(BUDGETED)


def default_system() -> SystemConfig:
    """The default scope's deployment: two clients, one instance (restarted at most once), a
    shared session store with a retained shared buffer of capacity 2 (so a session whose state
    was lost still has its old events), one event store keyed by event id, a fleet-wide id
    counter, and one-message calls (each message is a non-idempotent result)."""
    return SystemConfig(instances=1, clients=2, messages_per_session=1, messages_per_call=1,
                        store="shared", buffer="shared", buffer_keying="event_id",
                        buffer_capacity=2, event_ids="global", lb="random")


@dataclass(frozen=True)
class Scope:
    system: SystemConfig = field(default_factory=default_system)
    restarts: int = 1
    drops: int = 0
    half_opens: int = 0
    client_restarts: int = 1
    evictions: int = 0
    compactions: int = 1
    idle_timeouts: int = 0
    foreign_cursors: int = 1
    persists: int = 0
    sessions: int = 3
    expiries: int = 0

    def __post_init__(self) -> None:
        for name in BUDGET_NAMES:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(name, f"a budget must be an integer >= 0, got {value!r}")

    def budgets(self) -> Tuple[int, ...]:
        return tuple(getattr(self, name) for name in BUDGET_NAMES)

    def as_dict(self) -> Dict[str, object]:
        """The budgets and the deployment; `expiries` only where there are execution records
        or task records to expire (stateless+idempotency, tasks)."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "system"}
        if not self.system.keeps_records:
            del data["expiries"]
        data["system"] = self.system.as_dict()
        return data
