"""Cells of the reduced verification space that the equal-results tests run both ways."""
from pathlib import Path

from simulations.verify.run import plan
from simulations.verify.space import load

ROOT = Path(__file__).resolve().parent.parent


def reduced_cells(scratch: Path):
    """Two cells per gate of the reduced space: one deployment of each block, rotating."""
    space = load(ROOT / "simulations/spaces/reduced.toml")
    cells, per_gate = plan(space, scratch), len(space.deployments)
    blocks = [[i for i, d in enumerate(space.deployments) if d.block == b]
              for b in dict.fromkeys(d.block for d in space.deployments)]
    chosen = [g * per_gate + block[(g * 5) % len(block)]
              for g in range(len(space.gates)) for block in blocks]
    return space, [cells[i] for i in chosen]
