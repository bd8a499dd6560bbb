"""The verification matrix: every deployment of a declared space, explored under every gate.

  space.py       the space file (TOML): blocks of deployments, fault scopes, gates; validation
  run.py         one exploration per (gate, deployment) cell, resumable, on any executor
  exceptions.py  named exceptions: where no gate can make a property hold, and why
  matrix.py      verdicts.csv, cells.jsonl, VERIFY.md and manifest.json from the cell records
"""
