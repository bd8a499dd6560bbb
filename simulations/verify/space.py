"""Verification spaces (TOML): which deployments `verify` explores, under which fault scope.

    title = "..."
    policies = ["naive", "strict"]          # default: all six built-in policies
    gates = ["mygates:my_gate"]             # optional: your own gates, MODULE:FUNCTION
    client = "auto"                         # "auto" (the sdk policy with the MCP Python SDK
                                            # client, every other gate with a spec client) or
                                            # a profile: "spec", "sdk-python", "sdk-typescript"
    max_states = 400000                     # per cell; a cell that hits it is "unknown"

    [deployment]                            # the base every block starts from: any
    buffer_capacity = 2                     # SystemConfig key (unset keys: its defaults)

    [scope]                                 # every cell's work and fault budgets
    clients = 2
    messages_per_session = 1
    restarts = 1
    ...

    [[blocks]]                              # a factorial block of deployments
    name = "one instance"
    scope = { drops = 1 }                   # optional: this block's budgets differ
    [blocks.axes]                           # every combination is a deployment
    instances = [1]
    store = ["local", "shared"]

A deployment is a `SystemConfig`; an axis is any of its fields except the client's reactions
(`on_404`, `on_409`: set by `client`). Every key and every deployment is validated before
anything runs: an unknown key, an empty list, an empty space or an invalid value is a
`ConfigError` naming it. A deployment that two blocks share under the same budgets is explored
once (the first block names it); under different budgets it is two cells. A gate whose scopes of
two deployments are the same explores them once too (`cell_scope`: a placement of records its
transport does not keep; `Scope.as_dict`: a budget it cannot spend).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from model import POLICIES, ConfigError, SystemConfig, unknown_policy
from model.policies import STATELESS_ROWS

from ..clients import CHOICES, CONFIG, DEFAULT_PROFILE, resolve_client, unknown_client, with_client
from ..explore.scope import BUDGET_NAMES, Scope
from ..inputs import read_toml

_TOP = ("title", "policies", "gates", "client", "max_states", "deployment", "scope", "blocks")
_BLOCK = ("name", "axes", "scope")
#: a space's `client`: a profile, or `auto` (no `config`: a deployment never sets reactions)
CLIENTS = tuple(c for c in CHOICES if c != CONFIG)
#: the client's reactions are set by `client`, never an axis; the transport is a row of its own
#: (`policies` may name "stateless" and "stateless+idempotency" beside the gates)
CLIENT_KEYS = ("on_404", "on_409")
ROW_KEYS = ("transport",)
SYSTEM_KEYS = tuple(f.name for f in fields(SystemConfig)
                    if f.name not in CLIENT_KEYS + ROW_KEYS)
#: `execution_record` where the transport keeps no records: its default, which
#: `SystemConfig.as_dict` leaves out there
UNREAD_RECORDS = SystemConfig().execution_record
#: the work, set in [scope] (or an axis) beside the budgets
WORK_KEYS = ("clients", "messages_per_session", "messages_per_call", "side_effect_every")


@dataclass(frozen=True)
class Deployment:
    """One deployment of the space, the block it came from and its fault budgets."""
    block: str
    system: SystemConfig          # with the spec client's reactions; `cell_scope` pairs them
    budgets: Tuple[Tuple[str, int], ...]

    def key(self) -> Dict[str, Any]:
        """The deployment as a dict (no client reactions: those go with the gate; no
        transport: a stateless transport is a row), as `SystemConfig.as_dict` lists it."""
        return {k: v for k, v in self.system.as_dict().items() if k in SYSTEM_KEYS}

    def label(self, axes: Tuple[str, ...]) -> str:
        return ", ".join(f"{k}={getattr(self.system, k)}" for k in axes)


@dataclass(frozen=True)
class Space:
    path: Optional[Path]
    title: str
    gates: Tuple[str, ...]        # policy names and MODULE:FUNCTION paths, in order
    client: str
    max_states: int
    deployments: Tuple[Deployment, ...]
    axes: Tuple[str, ...]         # every key some block varies, in first-seen order

    def as_dict(self) -> Dict[str, Any]:
        return {"space": str(self.path) if self.path else None, "title": self.title,
                "gates": list(self.gates), "client": self.client,
                "max_states": self.max_states, "axes": list(self.axes),
                "deployments": len(self.deployments)}


_TRANSPORT_IS_A_ROW = (f"a transport is a row, not a deployment: name it in policies "
                       f"({', '.join(STATELESS_ROWS)}) beside the gates, whose cells need "
                       "sessions")


def client_profile(gate: str, client: str) -> str:
    """The client profile a gate is explored with (simulations/clients.py)."""
    return resolve_client(client, gate)


def cell_scope(deployment: Deployment, gate: str, client: str) -> Scope:
    """The explorer's scope for one (gate, deployment) cell; a stateless row's cell runs the
    deployment on that transport. Where the row's transport keeps no records (sessions, plain
    stateless), `execution_record` is read by nothing, so it takes its default: a deployment
    that differs from another only there is the same cell (`run.plan` explores it once)."""
    system = deployment.system.replace(transport=gate) if gate in STATELESS_ROWS \
        else deployment.system
    if not system.keeps_records and system.execution_record != UNREAD_RECORDS:
        system = system.replace(execution_record=UNREAD_RECORDS)
    system = with_client(system, client_profile(gate, client))
    return Scope(system=system, **dict(deployment.budgets))


def _int(value: Any, key: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ConfigError(key, f"expected an integer >= {low}, got {value!r}")
    return value


def _scope_table(data: Any, where: str) -> Dict[str, Any]:
    if not isinstance(data, dict):
        raise ConfigError(where, "must be a table of budgets and work keys")
    for key, value in data.items():
        if key not in BUDGET_NAMES + WORK_KEYS:
            raise ConfigError(f"{where}.{key}", "unknown scope key (budgets: "
                              f"{', '.join(BUDGET_NAMES)}; work: {', '.join(WORK_KEYS)})")
        _int(value, f"{where}.{key}", 1 if key in WORK_KEYS else 0)
    return dict(data)


def parse(data: Dict[str, Any], path: Optional[Path] = None,
          gates: Optional[List[str]] = None) -> Space:
    """Validate a space given as a dict (a parsed TOML file); `gates` replaces its gate list."""
    for key in data:
        if key not in _TOP:
            raise ConfigError(key, f"unknown key in the space (known: {', '.join(_TOP)})")
    if gates is None:
        policies = data.get("policies", list(POLICIES))
        if not isinstance(policies, list) or not all(isinstance(p, str) for p in policies):
            raise ConfigError("policies", f"a list drawn from {', '.join(POLICIES)}")
        for name in policies:
            problem = unknown_policy(name) if name not in STATELESS_ROWS else None
            if problem is not None:
                raise ConfigError("policies", f"{problem}, or a stateless transport "
                                              f"({', '.join(STATELESS_ROWS)})")
        extra = data.get("gates", [])
        if not isinstance(extra, list) or any(not isinstance(g, str) or ":" not in g
                                              for g in extra):
            raise ConfigError("gates", "a list of \"MODULE:FUNCTION\" gate paths")
        gates = list(policies) + list(extra)
    if not gates:
        raise ConfigError("policies", "the space names no policy or gate to verify")
    client = data.get("client", "auto")
    problem = unknown_client(client, CLIENTS)
    if problem is not None:
        raise ConfigError("client", problem)
    max_states = _int(data.get("max_states", 400_000), "max_states", 1)
    base = _scope_table(data.get("scope", {}), "scope")
    fixed = data.get("deployment", {})
    if not isinstance(fixed, dict):
        raise ConfigError("deployment", "must be a table of deployment keys")
    for key in fixed:
        if key in ROW_KEYS:
            raise ConfigError(f"deployment.{key}", _TRANSPORT_IS_A_ROW)
        if key not in SYSTEM_KEYS or key in WORK_KEYS:
            hint = " (the work goes in [scope])" if key in WORK_KEYS else \
                f" (known: {', '.join(k for k in SYSTEM_KEYS if k not in WORK_KEYS)})"
            raise ConfigError(f"deployment.{key}", "unknown deployment key" + hint)
    blocks = data.get("blocks", [])
    if not isinstance(blocks, list) or not blocks:
        raise ConfigError("blocks", "the space is empty: declare at least one [[blocks]] with "
                                    "axes")
    seen: Dict[Tuple, Deployment] = {}
    axes: List[str] = []
    for b, block in enumerate(blocks):
        where = f"blocks[{b}]"
        if not isinstance(block, dict):
            raise ConfigError(where, "must be a table with name and axes")
        for key in block:
            if key not in _BLOCK:
                raise ConfigError(f"{where}.{key}", f"unknown key (known: {', '.join(_BLOCK)})")
        name = block.get("name", where)
        scope = {**base, **_scope_table(block.get("scope", {}), f"{where}.scope")}
        grid = block.get("axes")
        if not isinstance(grid, dict) or not grid:
            raise ConfigError(f"{where}.axes", "the block has no axes: name at least one "
                                              "deployment key with a list of values")
        for key, values in grid.items():
            if key in ROW_KEYS:
                raise ConfigError(f"{where}.axes.{key}", _TRANSPORT_IS_A_ROW)
            if key not in SYSTEM_KEYS:
                hint = " (the client's reactions are set by `client`)" \
                    if key in CLIENT_KEYS else f" (known: {', '.join(SYSTEM_KEYS)})"
                raise ConfigError(f"{where}.axes.{key}", "unknown deployment key" + hint)
            if not isinstance(values, list) or not values:
                raise ConfigError(f"{where}.axes.{key}", "needs a non-empty list of values")
            if key not in axes:
                axes.append(key)
        work = {k: scope.pop(k) for k in WORK_KEYS if k in scope}
        budgets = {name_: scope.get(name_, getattr(Scope(), name_)) for name_ in BUDGET_NAMES}
        for combo in itertools.product(*grid.values()):
            values = dict(zip(grid.keys(), combo))
            try:
                system = with_client(SystemConfig.from_mapping({**fixed, **work, **values}),
                                     DEFAULT_PROFILE)
            except ConfigError as exc:
                point = ", ".join(f"{k}={v!r}" for k, v in values.items())
                raise ConfigError(f"{where}.axes.{exc.key}",
                                  f"{exc.problem} (deployment {point})") from None
            deployment = Deployment(name, system, tuple(sorted(budgets.items())))
            seen.setdefault((tuple(sorted(deployment.key().items())), deployment.budgets),
                            deployment)
    return Space(path, data.get("title", path.stem if path else "verification space"),
                 tuple(dict.fromkeys(gates)), client, max_states, tuple(seen.values()),
                 tuple(axes))


def load(path: Path, gates: Optional[List[str]] = None) -> Space:
    """Read and validate a space file."""
    path = Path(path)
    data = read_toml(path, "space file")
    return parse(data, path, gates)
