"""The incident matrix on real processes: every scripted incident (simulations.scenarios) under
every policy, run in lockstep on a fleet of real MCP Python SDK servers, each behind
ResumptionGuard deciding with that policy.

The model runs the scenario (its script, then the settle phase) on the deployment the fleet
really is: the scenario's topology with the guard's ids and stream behaviour (FLEET_DEPLOYMENT).
The harness then does every one of those actions to the real processes (differential.lockstep:
every client request goes through a real nginx round-robin in front of the instances, lined up
so that it sends each request where the model's load balancer does, and each answer is checked
to come from that instance (`steering`); an `Emit` releases the session's next tool message on
the instance that holds it; Stop and Start stop and restart a process) and compares, after every
step, each answer, each open stream and each client's cursor, and at the end what each client
applied. A cell agrees when nothing differs at any step.

The guard issues the scenario's own ids (tagged, per-session or per-process counters, uuids) and
looks cursors up as its buffer keying says; a shared store is a real Redis registry (a process
that finds a session there and not in its own table adopts it as a new generation and re-runs
its work), shared buffers live in the same Redis. A deployment the fleet cannot be yet is a cell
that says so ("not run: why"), never a verdict.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional

from model import POLICIES, SystemConfig

from ..scenarios import SCENARIOS
from ..script import ScenarioRun, run_script

#: what the Python SDK does beyond the scenario's deployment (found by conformance and
#: differential testing: it primes resumed streams, and replays then closes a stream a
#: half-open connection still holds); the guard issues the scenario's own ids and keys its
#: lookups as the scenario says
FLEET_DEPLOYMENT = {"priming_on_resume": True, "on_attached_stream": "replay_then_close"}
#: what the fleet's processes can be today, field by field
SUPPORTED = {"store": ("local", "shared"), "buffer": ("local", "shared")}
#: the server kind (processes.KINDS) that decides with each policy
KIND = {"strict": "guard", **{p: f"guard-{p}" for p in POLICIES if p != "strict"}}
AGREES, DIFFERS, NOT_RUN = "agrees", "differs", "not run"


class FleetRow(NamedTuple):
    scenario: str
    policy: str
    status: str                 # AGREES, DIFFERS or NOT_RUN
    detail: str                 # the disagreement, or why the cell did not run
    steps: int                  # actions run in lockstep
    model: Dict[str, int]       # the model's violations on the fleet's deployment (non-zero)
    matrix: Dict[str, int]      # the incident matrix's violations (the scenario's own ids)
    applied: Dict[str, List[str]]   # client -> what it applied on the real fleet, in order
    seconds: float

    def as_dict(self) -> Dict[str, object]:
        return dict(self._asdict())


def unsupported(config: SystemConfig) -> Optional[str]:
    """Why the fleet cannot be `config`'s deployment yet (None: it can)."""
    missing = [f"{name}={getattr(config, name)!r}" for name, values in SUPPORTED.items()
               if getattr(config, name) not in values]
    if config.buffer == "shared" and config.buffer_keying != "session":
        missing.append("an event-id keyed store shared by the fleet (the guard looks ids up "
                       "across sessions only in its own process)")
    return "; ".join(missing) or None


def needs_redis(config: SystemConfig) -> bool:
    """The fleet of `config`'s deployment keeps its registry in a real Redis: where its store or
    its buffers are shared."""
    return "shared" in (config.store, config.buffer)


def model_run(scenario: str, policy: str, on_the_fleet: bool = True,
              overrides: Optional[dict] = None) -> ScenarioRun:
    """The scenario under `policy`, on the fleet's deployment (or the incident matrix's), with
    `overrides` of its deployment (as a reviewer asks "and with tagged ids?")."""
    changed = {**(overrides or {}), **(FLEET_DEPLOYMENT if on_the_fleet else {})}
    return run_script(SCENARIOS[scenario], policy, overrides=changed or None)


def _violations(run: ScenarioRun) -> Dict[str, int]:
    return {name: n for name, n in run.report.violations.items() if n}


def run_cell(scenario: str, policy: str, workdir: Path,
             overrides: Optional[dict] = None) -> FleetRow:
    """One (scenario, policy) cell: the model's run, then the same actions on a real fleet;
    `overrides`: of the scenario's deployment, on both sides."""
    from .differential.disagreement import Disagreement
    from .differential.lockstep import VOCABULARY, Lockstep
    started = time.monotonic()
    run = model_run(scenario, policy, True, overrides)
    model, matrix = _violations(run), _violations(model_run(scenario, policy, False, overrides))
    actions = [r.action for r in run.steps if r.action is not None]

    def row(status: str, detail: str, steps: int = 0, applied=None) -> FleetRow:
        return FleetRow(scenario, policy, status, detail, steps, model, matrix, applied or {},
                        round(time.monotonic() - started, 2))
    why = unsupported(run.config)
    if why is None:
        odd = sorted({type(a).__name__ for a in actions if type(a) not in VOCABULARY})
        why = f"the run takes actions the harness cannot do: {odd}" if odd else None
    if why is not None:
        return row(NOT_RUN, why)
    import anyio.from_thread

    from .differential.streams import StreamPool
    from .processes import Processes
    from .steering import SteeredNginx
    config = run.config
    with Processes(workdir / f"{scenario}-{policy}") as procs, \
            anyio.from_thread.start_blocking_portal() as portal:
        registry = ""
        if needs_redis(config):   # the fleet's registry: a real Redis
            from .redis_server import RedisServer
            registry = RedisServer(procs).start().url
        fleet = [procs.server(f"i{i}", capacity=config.buffer_capacity, kind=KIND[policy],
                              ids=config.event_ids, keying=config.buffer_keying,
                              registry=registry, shared_buffers=config.buffer == "shared")
                 for i in range(config.instances)]
        router = SteeredNginx(procs, fleet)
        pool = StreamPool(portal)
        lock = Lockstep(fleet, pool, KIND[policy], config, policy, 1, router)
        try:
            for action in actions:
                lock.step(action)
            lock.finish()
        except Disagreement as exc:
            return row(DIFFERS, exc.what, len(lock.log), _applied(lock))
        finally:
            lock.close()
            pool.close()
            router.close()
    return row(AGREES, f"{len(actions)} steps, every observation agrees; {router.requests} "
               "client requests through nginx, each answered by the scenario's instance",
               len(actions), _applied(lock))


def _applied(lock) -> Dict[str, List[str]]:
    return {f"c{c}": [f"t{token}:{msg}" for token, msg in real.applied]
            for c, real in enumerate(lock.clients)}


def run_fleet(scenarios: List[str], policies: List[str], workdir: Path,
              progress=None, workers: int = 1) -> List[FleetRow]:
    """Every (scenario, policy) cell, in order, each on fresh processes under `workdir`;
    `workers` cells at a time (`parallel.run_units`)."""
    from .parallel import run_units
    return run_units(run_cell, [(scenario, policy, Path(workdir)) for scenario in scenarios
                                for policy in policies], workers, progress)
