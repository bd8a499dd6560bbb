"""Run a sweep through any `concurrent.futures.Executor`: local processes or a Dask cluster.

Each run has a content-addressed key (its config, policy, replication, seed and a hash of the
DES sources, `DES_SOURCES`). The parent process writes every finished run to
`DIR/runs/<key>.json` through a temporary file and a rename, so a run file is complete or
absent whatever moment the sweep is killed at; a re-run skips the keys it finds. The tidy
table is assembled from the run files at the end.
"""
from __future__ import annotations

import hashlib
import json
import time
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from ..des import config as des_config
from ..des.runner import run_replication
from ..provenance import sources_hash, write_atomic
from .spec import SweepSpec, tasks


def run_key(config_data: dict, policy: str, replication: int, code: dict) -> str:
    """Content address of one run: what it computes and with which code."""
    payload = json.dumps({"system": config_data["system"], "timing": config_data["timing"],
                          "client": config_data["client"], "seed": config_data["run"]["seed"],
                          "policy": policy, "replication": replication, "code": code},
                         sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


def execute_run(config_data: dict, policy: str, replication: int) -> dict:
    """Worker entry point (top level, so any executor can pickle it): one DES replication."""
    config = des_config.from_mapping({
        "system": config_data["system"], "timing": config_data["timing"],
        "client": config_data["client"], "run": {**config_data["run"], "policies": [policy],
                                                 "baseline": policy}})
    return run_replication(config, policy, replication)


def check_scheduler(address: str, timeout: float = 3.0) -> None:
    """Raise ValueError (one line) unless a Dask scheduler accepts TCP connections at
    `address` (tcp://HOST:PORT): checked before any work, so a wrong address fails at once."""
    import socket
    from urllib.parse import urlsplit
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if parts.scheme != "tcp" or not host or not port:
        raise ValueError(f"--scheduler {address!r}: expected tcp://HOST:PORT")
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        raise ValueError(f"--scheduler {address!r}: no Dask scheduler reachable there "
                         f"({exc.strerror or exc})") from None


@contextmanager
def make_executor(workers: int, scheduler: Optional[str]) -> Iterator[Executor]:
    """Local processes, or the Dask cluster at `scheduler` (tcp://HOST:PORT)."""
    if scheduler:
        from distributed import Client
        client = Client(scheduler, timeout="20s")
        try:
            yield client.get_executor()
        finally:
            client.close()
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            yield pool


# What a DES run's record depends on: a run is keyed by a hash of these sources, so a commit
# that does not touch them keeps every finished run (and one that does re-runs them all).
DES_SOURCES = ("model", "simulations/des")


def des_code() -> dict:
    """The code part of every run key: a hash of DES_SOURCES as they are now."""
    return {"des_sources": sources_hash(DES_SOURCES)}


def plan(spec: SweepSpec, out: Path, code: Optional[dict] = None
         ) -> Tuple[List[dict], List[dict]]:
    """(all runs, runs still to do): each a dict with its key, point, policy and replication.
    `code` (default: the DES sources' hash now) is part of every key; pass the same value to
    every call of one invocation, so edits made meanwhile cannot change its keys."""
    code = code or des_code()
    runs, todo = [], []
    for point, policy, r in tasks(spec):
        data = point.config.as_dict()
        entry = {"key": run_key(data, policy, r, code), "point": dict(point.values),
                 "policy": policy, "replication": r, "config": data}
        runs.append(entry)
        if not _finished(out / "runs" / f"{entry['key']}.json"):
            todo.append(entry)
    return runs, todo


def _finished(path: Path) -> bool:
    try:
        json.loads(path.read_text())
        return True
    except (OSError, ValueError):
        return False


def run_pending(pending: Sequence, call: Callable[[Any], tuple],
                keep: Callable[[Any, Any], None], workers: int, scheduler: Optional[str],
                total: int, unit: str, desc: str, progress: bool,
                size: Callable[[Any], int] = lambda task: 1) -> None:
    """Submit `call(task)` (a tuple: a top-level function and its arguments) for every pending
    task on the executor, and hand each result to `keep(task, result)` in this process as it
    finishes (so whatever `keep` writes is complete or absent if the run is killed). A progress
    bar counts `total` units, the finished ones included; a task is `size(task)` units."""
    bar = None
    if progress:
        from tqdm import tqdm
        # disable=None: no bar where stderr is not a terminal (CI logs, pipes), instead of a
        # carriage-return update per run
        bar = tqdm(total=total, initial=total - sum(size(t) for t in pending), unit=unit,
                   desc=desc, dynamic_ncols=True, disable=None)
    if pending:
        with make_executor(workers, scheduler) as executor:
            futures = {executor.submit(*call(task)): task for task in pending}
            for future in as_completed(futures):
                keep(futures[future], future.result())
                if bar is not None:
                    bar.update(size(futures[future]))
    if bar is not None:
        bar.close()


def run_sweep(spec: SweepSpec, out: Path, workers: int = 1, scheduler: Optional[str] = None,
              progress: bool = True, code: Optional[dict] = None) -> Dict[str, object]:
    """Run what is left of the sweep; returns counts and timings."""
    runs, todo = plan(spec, out, code)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    cpu = [0.0]

    def keep(entry: dict, record: dict) -> None:
        cpu[0] += record["cpu_seconds"]
        write_atomic(out / "runs" / f"{entry['key']}.json", json.dumps(
            {"key": entry["key"], "point": entry["point"], "policy": entry["policy"],
             "replication": entry["replication"], "record": record}, sort_keys=True))

    run_pending(todo, lambda e: (execute_run, e["config"], e["policy"], e["replication"]),
                keep, workers, scheduler, len(runs), "run", spec.title, progress)
    return {"runs": len(runs), "ran": len(todo), "skipped": len(runs) - len(todo),
            "wall_seconds": time.perf_counter() - start, "cpu_seconds_of_runs": cpu[0],
            "workers": workers if not scheduler else None, "scheduler": scheduler}
