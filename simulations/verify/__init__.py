"""The verification matrix: every deployment of a declared space, explored under every gate.

  space.py       the space file (TOML): blocks of deployments, fault scopes, gates; validation
  cell.py        one cell: explore a deployment under a gate (what a cell's key hashes)
  run.py         every cell of a space, resumable, on local processes or a Dask cluster
  exceptions.py  named exceptions: where no gate can make a property hold, and why
  matrix.py      verdicts.csv, cells.jsonl, VERIFY.md and manifest.json from the cell records
"""
from pathlib import Path

#: where `make verification` writes the committed verification matrix
MATRIX = Path("results/verification/matrix")
