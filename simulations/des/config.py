"""Configuration of a discrete-event run: the deployment (the model's `SystemConfig`), the
timings, the client profile and the run itself, loaded from TOML and validated on construction.

Every time is in seconds and every rate is per second. Unknown keys, wrong types and
out-of-range values raise `ConfigError` naming the key as `section.field`.
"""
from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

from model import POLICIES, ConfigError, SystemConfig, unknown_policy
from model.policies import STATELESS_ROWS

from ..clients import NATURAL_CLIENT, PROFILES, ClientProfile, unknown_client
from ..inputs import read_toml


def parse_row(row: str) -> Tuple[str, Optional[str]]:
    """A policy row `POLICY` or `POLICY+PROFILE` (e.g. `sdk+spec`: the SDK's server decisions
    with a spec client, an idealized SDK), or a stateless transport (`stateless`,
    `stateless+idempotency`: a design without resumption, so without a gate) -> (policy or
    transport, profile or None). Raises ConfigError."""
    if row in STATELESS_ROWS:
        return row, None
    policy, plus, profile = row.partition("+")
    problem = unknown_policy(policy)
    if problem is not None:
        raise ConfigError("run.policies", f"{problem}, or a stateless transport "
                                          f"({', '.join(STATELESS_ROWS)}) (row {row!r}: "
                                          "POLICY, POLICY+PROFILE or a transport)")
    problem = unknown_client(profile, tuple(PROFILES)) if plus else None
    if problem is not None:
        raise ConfigError("run.policies", f"{problem} (row {row!r})")
    return policy, (profile if plus else None)


@dataclass(frozen=True)
class Timing:
    """Timings of one replication (seconds; rates per second)."""

    duration: float = 3600.0            # simulated time per replication
    arrival_rate: float = 0.05          # client sessions arriving per second (Poisson)
    event_interval: float = 2.0         # mean time between a session's messages (exponential)
    latency: float = 0.05               # one-way network latency of a request or an event
    drop_rate: float = 0.002            # network drops per second of an open stream
    client_restart_rate: float = 0.0005  # client process restarts per second per client
    persist_every: int = 3              # the client persists its cursor every k events applied
    idle_timeout: float = 30.0          # the LB closes a stream that carried no data this long
    restart_period: float = 900.0       # a rolling restart of the fleet starts this often
    #                                     (0: never)
    drain_time: float = 20.0            # a restarting instance drains this long before it stops
    start_time: float = 5.0             # a stopped instance takes this long to start again
    crash_rate: float = 0.0             # crashes per second per instance
    idle_ttl: float = 600.0             # a session is evicted after this long without activity
    absolute_ttl: float = 7200.0        # ... and this long after it was created
    reap_interval: float = 10.0         # how often expired sessions are evicted
    record_ttl: float = 3600.0          # an execution record (stateless+idempotency) expires
    #                                     this long after the call it records was executed;
    #                                     a task record (tasks) this long after its creation
    poll_interval: float = 5.0          # a client holding a task handle polls it this often


_POSITIVE = {"duration", "event_interval", "idle_timeout", "reap_interval", "absolute_ttl",
             "idle_ttl", "record_ttl", "poll_interval"}
_COUNT = {"persist_every"}


@dataclass(frozen=True)
class DesConfig:
    """Everything one comparison needs: `system`, `timing`, `client` profile and `run` settings."""

    system: SystemConfig = field(default_factory=SystemConfig)
    timing: Timing = field(default_factory=Timing)
    client_profile: str = "spec"
    policies: Tuple[str, ...] = tuple(POLICIES)
    replications: int = 10
    seed: int = 1
    baseline: str = "strict"

    def __post_init__(self) -> None:
        for f in fields(Timing):
            value = getattr(self.timing, f.name)
            key = f"timing.{f.name}"
            if f.name in _COUNT:
                if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                    raise ConfigError(key, f"expected an integer >= 1, got {value!r}")
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ConfigError(key, f"expected a number of seconds or a rate, got {value!r}")
            if value < 0 or (f.name in _POSITIVE and value == 0):
                raise ConfigError(key, f"must be {'> 0' if f.name in _POSITIVE else '>= 0'}, "
                                       f"got {value}")
        problem = unknown_client(self.client_profile, tuple(PROFILES))
        if problem is not None:
            raise ConfigError("client.profile", problem)
        if not self.policies:
            raise ConfigError("run.policies", "needs at least one policy")
        for name in self.policies:
            parse_row(name)
        if len(set(self.policies)) != len(self.policies):
            raise ConfigError("run.policies", "names a policy row twice")
        transport = self.system.transport
        gates = [row for row in self.policies if row != transport]
        if transport != "sessions" and gates:
            raise ConfigError("run.policies", f"{gates[0]!r} decides resumptions, and "
                                              f"system.transport = {transport!r} has none: "
                                              f"set run.policies = [{transport!r}], or keep "
                                              "sessions and add the transport as a row")
        if self.baseline not in self.policies:
            raise ConfigError("run.baseline", f"{self.baseline!r} is not among the policies "
                                              f"({', '.join(self.policies)}): add it, or name "
                                              "another baseline (run.baseline, --baseline)")
        for key, value, low in (("run.replications", self.replications, 1),
                                ("run.seed", self.seed, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ConfigError(key, f"expected an integer >= {low}, got {value!r}")

    def profile_name(self, row: str) -> str:
        """The client profile of a policy row: the one it names, else the policy's natural
        client (`sdk` -> sdk-python), else `client.profile`."""
        policy, profile = parse_row(row)
        return profile or NATURAL_CLIENT.get(policy, self.client_profile)

    def profile(self, row: str) -> ClientProfile:
        return PROFILES[self.profile_name(row)]

    def model_config(self, row: str) -> SystemConfig:
        """The model's config with the row's client reactions to 404/409, and its transport
        (a stateless row runs the deployment on that transport)."""
        system = self.system.replace(transport=row) if row in STATELESS_ROWS else self.system
        return self.profile(row).applied_to(system)

    def uses_records(self) -> bool:
        """Some row keeps execution records (stateless+idempotency) or task records (tasks):
        timing.record_ttl and system.execution_record apply."""
        return any(row in ("stateless+idempotency", "tasks") for row in self.policies) or \
            self.system.keeps_records

    def uses_tasks(self) -> bool:
        """Some row polls tasks: timing.poll_interval applies."""
        return "tasks" in self.policies or self.system.tasks

    def row_profiles(self) -> Dict[str, str]:
        return {row: self.profile_name(row) for row in self.policies}

    def as_dict(self) -> dict:
        """The TOML layout (`from_mapping(c.as_dict()) == c`); the client's reactions to
        404/409 come from client.profile and clients arrive, so EXPLORER_ONLY keys are left
        out."""
        system = {k: v for k, v in self.system.as_dict().items() if k not in EXPLORER_ONLY}
        timing = asdict(self.timing)
        if not self.uses_records() and self.timing.record_ttl == Timing.record_ttl:
            del timing["record_ttl"]      # no row reads it: as before there were records
        if not self.uses_tasks() and self.timing.poll_interval == Timing.poll_interval:
            del timing["poll_interval"]   # no row polls: as before there were tasks
        if self.uses_records() and "execution_record" not in system:
            system["execution_record"] = self.system.execution_record
        return {"system": system, "timing": timing,
                "client": {"profile": self.client_profile},
                "run": {"policies": list(self.policies), "replications": self.replications,
                        "seed": self.seed, "baseline": self.baseline}}


_SECTIONS = ("system", "timing", "client", "run")

# SystemConfig keys the explorer uses that a DES config must not set (and why)
EXPLORER_ONLY = {
    "clients": "is the explorer's fixed number of clients; in a DES run clients arrive at "
               "timing.arrival_rate",
    "on_404": "is set by client.profile in a DES run",
    "on_409": "is set by client.profile in a DES run",
}


def from_mapping(data: Mapping[str, Any]) -> DesConfig:
    """Build a DesConfig from the TOML layout (sections system, timing, client, run)."""
    for section in data:
        if section not in _SECTIONS:
            raise ConfigError(str(section), f"unknown section (known: {', '.join(_SECTIONS)})")
        if not isinstance(data[section], Mapping):
            raise ConfigError(str(section), "must be a table of key = value")
    system_data = dict(data.get("system", {}))
    for key, why in EXPLORER_ONLY.items():
        if key in system_data:
            raise ConfigError(f"system.{key}", why)
    try:
        system = SystemConfig.from_mapping(system_data)
    except ConfigError as exc:
        raise ConfigError(f"system.{exc.key}", exc.problem) from None
    timing_data = dict(data.get("timing", {}))
    known = {f.name for f in fields(Timing)}
    for key in timing_data:
        if key not in known:
            raise ConfigError(f"timing.{key}", f"unknown key (known: {', '.join(sorted(known))})")
    client = dict(data.get("client", {}))
    for key in client:
        if key != "profile":
            raise ConfigError(f"client.{key}", "unknown key (known: profile; dedupe is "
                                               "system.client_dedupe)")
    run = dict(data.get("run", {}))
    for key in run:
        if key not in ("policies", "replications", "seed", "baseline"):
            raise ConfigError(f"run.{key}", "unknown key (known: baseline, policies, "
                                            "replications, seed)")
    policies = run.get("policies", list(POLICIES))
    if not isinstance(policies, (list, tuple)) or not all(isinstance(p, str) for p in policies):
        raise ConfigError("run.policies", f"expected a list of policy names, got {policies!r}")
    if not policies:
        raise ConfigError("run.policies", "needs at least one policy")
    return DesConfig(system, Timing(**timing_data), client.get("profile", "spec"),
                     tuple(policies), run.get("replications", 10), run.get("seed", 1),
                     run.get("baseline", "strict" if "strict" in policies else policies[0]))


def _parse_value(text: str) -> Any:
    """A --set value as TOML (numbers, booleans, lists, quoted strings), else a bare string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply_overrides(data: Dict[str, Any], overrides: Sequence[str]) -> Dict[str, Any]:
    """Apply `section.key=value` overrides to a TOML mapping (a new dict)."""
    out = {section: dict(values) for section, values in data.items()}
    for item in overrides:
        key, sep, value = item.partition("=")
        section, dot, name = key.strip().partition(".")
        if not sep or not dot or not name:
            raise ConfigError(key.strip() or item, "--set expects section.key=value "
                                                   "(e.g. timing.restart_period=300)")
        if section not in _SECTIONS:
            raise ConfigError(section, f"unknown section (known: {', '.join(_SECTIONS)})")
        out.setdefault(section, {})[name] = _parse_value(value.strip())
    return out


# The one default: a config file (or none) is read on top of this file, so a partial config
# means "the default comparison, except ...", and every key it leaves out has the value
# documented there.
DEFAULT_CONFIG = Path(__file__).resolve().parent.parent / "configs" / "rolling_restart.toml"


def with_defaults(data: Mapping[str, Any]) -> Dict[str, Any]:
    """`data` on top of DEFAULT_CONFIG, section by section (a key it sets wins)."""
    out = {section: dict(values) for section, values in read_toml(DEFAULT_CONFIG).items()}
    for section, values in data.items():
        if isinstance(values, Mapping) and isinstance(out.get(section), dict):
            out[section].update(values)
        else:
            out[section] = values
    return out


def load(path: Optional[Path], overrides: Sequence[str] = (),
         replications: Optional[int] = None, seed: Optional[int] = None,
         policies: Optional[Sequence[str]] = None, baseline: Optional[str] = None) -> DesConfig:
    """Read a TOML config on top of DEFAULT_CONFIG, apply --set overrides and the run options;
    validate everything. Policies that leave out the baseline are an error unless `baseline`
    names one of them."""
    data = with_defaults(read_toml(path) if path is not None else {})
    data = apply_overrides(data, overrides)
    run = data.setdefault("run", {})
    if replications is not None:
        run["replications"] = replications
    if seed is not None:
        run["seed"] = seed
    if policies is not None:
        run["policies"] = list(policies)
    if baseline is not None:
        run["baseline"] = baseline
    return from_mapping(data)
