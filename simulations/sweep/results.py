"""Sweep results: one tidy CSV row per run, a manifest, and loading both into pandas.

CSV rather than Parquet: the tables are small (thousands of rows), committed results stay
readable and diffable text, and pandas reads them in one call without another dependency.
Rows hold no timing, so the same sweep gives byte-identical files on any executor.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List, Optional

import pandas as pd

from ..provenance import manifest, write_atomic, write_json
from .spec import SweepSpec

LEADING = ["key", "policy", "replication"]
TIMING = ("cpu_seconds",)


def flatten(record: dict, prefix: str = "") -> Dict[str, object]:
    out: Dict[str, object] = {}
    for key, value in record.items():
        if key in TIMING:
            continue
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, name + "."))
        else:
            out[name] = value
    return out


def rows(spec: SweepSpec, runs: List[dict], out: Path) -> pd.DataFrame:
    """The tidy table of every run of the plan, in plan order."""
    grid_keys = [k for k, _ in spec.grid]
    table = []
    for entry in runs:
        data = json.loads((out / "runs" / f"{entry['key']}.json").read_text())
        row = {"key": entry["key"], "policy": entry["policy"],
               "replication": entry["replication"]}
        row.update({f"param.{k}": entry["point"][k] for k in grid_keys})
        row.update(flatten(data["record"]))
        table.append(row)
    frame = pd.DataFrame(table)
    counts = [c for c in frame.columns if c.split(".")[0] in
              ("decisions", "statuses", "duplicates_by_cause", "executions_by_cause")]
    frame[counts] = frame[counts].fillna(0).astype(int)
    fixed = LEADING + [f"param.{k}" for k in grid_keys]
    return frame[fixed + sorted(c for c in frame.columns if c not in fixed)]


def write(spec: SweepSpec, runs: List[dict], out: Path, timings: Dict[str, object],
          precision: Optional[dict] = None) -> Path:
    """results.csv, manifest.json (spec, seeds, code, packages, host, base config and the
    precision report: what the results are) and timings.json (how long this invocation took:
    kept out of the manifest, so its hash changes only when the results can)."""
    frame = rows(spec, runs, out)
    write_atomic(out / "results.csv", frame.to_csv(index=False, lineterminator="\n"))
    seeds = {"root": spec.seed, "replications": spec.replications,
             "derivation": "numpy SeedSequence(root).spawn(replications)[r], the same for "
                           "every point and policy"}
    meta = manifest(f"sweep {spec.path}", spec.as_dict(), seeds)
    meta["base_config"] = spec.base_config.as_dict()
    if precision is not None:
        meta["precision"] = precision
    write_json(out / "timings.json", timings)
    write_json(out / "manifest.json", meta)
    return out / "results.csv"


def load_results(folder: Path) -> pd.DataFrame:
    """A sweep's results as one DataFrame (the manifest is in `frame.attrs["manifest"]`)."""
    folder = Path(folder)
    frame = pd.read_csv(folder / "results.csv")
    frame.attrs["manifest"] = json.loads((folder / "manifest.json").read_text())
    return frame
