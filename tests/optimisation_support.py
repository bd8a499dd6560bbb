"""What the equal-results tests compute both ways (speed-ups off, compiled vs source): cells of
the reduced verification space, the incident matrix and DES replications, without CPU time."""
from pathlib import Path

from simulations.des import config as des_config
from simulations.des.runner import run_replication
from simulations.incidents import record
from simulations.scenarios import INCIDENT_ROWS, SCENARIOS
from simulations.script import run_script
from simulations.verify.cell import execute_cell
from simulations.verify.run import plan
from simulations.verify.space import load

ROOT = Path(__file__).resolve().parent.parent
DES_POLICIES = ("naive", "strict", "sdk")


def reduced_cells(scratch: Path):
    """Two cells per gate of the reduced space: one deployment of each block, rotating."""
    space = load(ROOT / "simulations/spaces/reduced.toml")
    cells, per_gate = plan(space, scratch), len(space.deployments)
    blocks = [[i for i, d in enumerate(space.deployments) if d.block == b]
              for b in dict.fromkeys(d.block for d in space.deployments)]
    chosen = [g * per_gate + block[(g * 5) % len(block)]
              for g in range(len(space.gates)) for block in blocks]
    return space, [cells[i] for i in chosen]


def explored_cells(space, cells) -> list:
    """execute_cell of each cell, its CPU time left out."""
    out = []
    for cell in cells:
        found = execute_cell(cell["policy"], cell["scope"], space.max_states)
        found.pop("seconds")
        out.append(found)
    return out


def incident_records() -> list:
    """Every scripted incident under every named policy and stateless transport."""
    return [record(run_script(s, p)) for s in SCENARIOS.values() for p in INCIDENT_ROWS]


def des_records(policy: str) -> list:
    """Two replications of the rolling-restart config (1200 s) under `policy`, CPU time out."""
    config = des_config.load(ROOT / "simulations/configs/rolling_restart.toml",
                             ["timing.duration=1200"], replications=2, policies=[policy],
                             baseline=policy)
    out = [run_replication(config, policy, r) for r in range(2)]
    for r in out:
        r.pop("cpu_seconds")
    return out


def exploration_summary(result) -> dict:
    """Everything an exploration reports, traces included."""
    verdicts = {name: (v.verdict, v.why,
                       None if v.finding is None else repr(v.finding.actions),
                       {cause: repr(f.actions) for cause, f in v.causes.items()})
                for name, v in result.verdicts().items()}
    return {"states": result.states, "transitions": result.transitions,
            "depth": result.depth, "incomplete": result.incomplete, "verdicts": verdicts,
            "sometimes": result.sometimes, "coverage": dict(result.coverage),
            "costs": {k: repr(f.actions) for k, f in result.costs.items()},
            "by_cause": {k: repr(f.actions) for k, f in result.by_cause.items()}}
