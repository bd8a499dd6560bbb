"""The verification matrix's files: verdicts.csv, cells.jsonl, VERIFY.md and manifest.json.

Every cell record (from `run.execute_cell`) is annotated here with the named exceptions, so the
exceptions can be revised without re-running any exploration. Everything is computed before the
first file is written, and each file is written atomically.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from model import BUILD as model_build
from model import SystemConfig
from model.properties import BY_NAME, LIVENESS, SOMETIMES_CHECKS, VERDICT_PROPERTIES

from ..provenance import manifest, write_atomic, write_json
from ..render import markdown
from .exceptions import EXCEPTIONS, excused_by
from .space import SYSTEM_KEYS, Space

JUDGED = tuple(n for n in VERDICT_PROPERTIES if BY_NAME[n].judged)


def annotate(record: dict) -> dict:
    """Mark each violated property with the exceptions that excuse its causes: `excused_by`
    names them when every cause of the violation is excused, else None."""
    out = dict(record)
    props = {}
    for name, p in record["properties"].items():
        p = dict(p)
        p["excused_by"] = None
        if p["verdict"] == "violated":
            names = [excused_by(record["deployment"], name, cause, record["policy"])
                     for cause in p["causes"]]
            if names and all(names):
                p["excused_by"] = ", ".join(sorted(set(names)))
        props[name] = p
    out["properties"] = props
    return out


def failing(record: dict) -> List[str]:
    """Judged properties violated with at least one cause no exception excuses."""
    return [n for n in JUDGED if record["properties"][n]["verdict"] == "violated"
            and not record["properties"][n]["excused_by"]]


def unknown(record: dict) -> List[str]:
    return [n for n in JUDGED if record["properties"][n]["verdict"] == "unknown"]


def cell_json(record: dict) -> dict:
    """The `--json` / cells.jsonl object of one cell (no timings: the same on any machine)."""
    return {"policy": record["policy"], "gate_name": record["gate_name"],
            "block": record["block"], "client_profile": record["client_profile"],
            "deployment": record["deployment"],
            "scope": {k: v for k, v in record["scope"].items() if k != "system"},
            "properties": record["properties"], "states": record["states"],
            "subsumed": record["subsumed"], "transitions": record["transitions"],
            "complete": record["complete"],
            "incomplete": record["incomplete"],
            "sometimes": record["sometimes"], "costs": record["costs"],
            "gate_error": record["gate_error"], "traces": record["traces"]}


def verdicts_csv(records: Sequence[dict]) -> str:
    """One tidy row per (gate, deployment, property)."""
    buffer = io.StringIO()
    columns = (["policy", "block", "client_profile"] + list(SYSTEM_KEYS)
               + ["property", "kind", "judged", "verdict", "trace_length", "causes",
                  "excused_by", "states", "complete"])
    writer = csv.DictWriter(buffer, columns, lineterminator="\n")
    writer.writeheader()
    for r in records:
        for name in VERDICT_PROPERTIES:
            p = r["properties"][name]
            writer.writerow({"policy": r["policy"], "block": r["block"],
                             "client_profile": r["client_profile"],
                             **{k: _key_value(r, k) for k in SYSTEM_KEYS},
                             "property": name, "kind": BY_NAME[name].kind,
                             "judged": BY_NAME[name].judged, "verdict": p["verdict"],
                             "trace_length": p["trace_length"] or "",
                             "causes": ";".join(f"{c}:{n}" for c, n in p["causes"].items()),
                             "excused_by": p["excused_by"] or "", "states": r["states"],
                             "complete": r["complete"]})
    return buffer.getvalue()


def _cell_text(record: dict) -> str:
    parts = []
    for name in JUDGED:
        p = record["properties"][name]
        if p["verdict"] == "violated":
            parts.append(BY_NAME[name].label + ("*" if p["excused_by"] else ""))
        elif p["verdict"] == "unknown":
            parts.append(BY_NAME[name].label + "?")
    if record["gate_error"]:
        parts.append("GATE-ERROR")
    return " ".join(parts) if parts else "-"


def _entry_text(entry: dict) -> str:
    """A block table's cell: a cell's labels, or `=` and those of the cell an alias is."""
    return "= " + _cell_text(entry["shared"]) if "same_as" in entry else _cell_text(entry)


def _table(header: List[str], rows: List[List[str]]) -> List[str]:
    return markdown(("", header, rows), with_title=False, aligned=True).split("\n")


def _trace_text(actions: List[str]) -> str:
    return " ".join(actions)


def witnesses(records: Sequence[dict]) -> Dict[str, Optional[dict]]:
    """For each judged property, the shortest non-excused violation anywhere (gate, deployment,
    cause, trace), or None: a property nobody violates is vacuous in this space."""
    out: Dict[str, Optional[dict]] = {}
    for name in JUDGED:
        best = None
        for r in records:
            p = r["properties"][name]
            for cause, length in p["causes"].items():
                if excused_by(r["deployment"], name, cause, r["policy"]):
                    continue
                if best is None or length < best["length"]:
                    best = {"gate": r["policy"], "deployment": r["deployment"], "cause": cause,
                            "length": length, "trace": r["traces"][name][cause]}
        out[name] = best
    return out


def summary(records: Sequence[dict]) -> Dict[str, dict]:
    """Per gate: cells, cells where every judged property holds (or only excused violations),
    cells with a failing property, cells with an unknown verdict, and per-property counts."""
    out: Dict[str, dict] = {}
    for r in records:
        s = out.setdefault(r["policy"], {"cells": 0, "clean": 0, "failing": 0, "unknown": 0,
                                       "excused": 0, "by_property": dict.fromkeys(JUDGED, 0),
                                       "states": 0})
        s["cells"] += 1
        s["states"] += r["states"]
        bad, unsure = failing(r), unknown(r)
        excused = any(r["properties"][n]["excused_by"] for n in JUDGED)
        s["failing"] += bool(bad)
        s["unknown"] += bool(unsure) and not bad
        s["clean"] += not bad and not unsure
        s["excused"] += excused and not bad and not unsure
        for n in bad:
            s["by_property"][n] += 1
    return out


def _blocks(space: Space, records: Sequence[dict], aliases: Sequence[dict]) -> List[List[dict]]:
    """Per block of the space (in its order), its cells and its aliases (each with `shared`:
    the record of the cell it is)."""
    by_key = {r["key"]: r for r in records}
    entries = list(records) + [a | {"shared": by_key[a["same_as"]]} for a in aliases]
    return [in_block for in_block in ([e for e in entries if e["block"] == block]
                                      for block in dict.fromkeys(d.block
                                                                 for d in space.deployments))
            if in_block]


def verify_md(space: Space, records: Sequence[dict], meta: dict,
              aliases: Sequence[dict] = ()) -> str:
    gates = list(space.gates)
    out = [f"# Verification matrix: {space.title}", "",
           "Every cell is an exhaustive breadth-first exploration of one deployment under one "
           "gate within the block's fault scope. A verdict is `holds` only when the search was "
           "complete; `violated` has a shortest trace; `unknown` says which budget was hit. "
           "Stall as liveness assumes that the system's own progress (delivery, emission, "
           "a client's retry or re-initialization, instance starts, the stop that completes "
           "a drain) is fair and that faults are not.", "",
           f"{len(space.deployments)} deployments x {len(gates)} gates: {len(records)} cells "
           "(deployments a gate explores in the same scope are one cell: a budget the gate "
           "cannot spend, or a placement of records its transport does not keep, makes no "
           "other cell), "
           f"{sum(r['states'] for r in records):,} states explored (and "
           f"{sum(r['subsumed'] for r in records):,} skipped: each had a reached state with "
           "the same model state and fault budgets at least as large, which finds whatever "
           "it finds, as early); state budget "
           f"{space.max_states:,} per cell; clients: {space.client} "
           "(auto: the `sdk` policy with the MCP SDK client, every other gate with a client "
           "that follows the spec).", ""]
    out += ["## Summary", "",
            "Clean: every judged property holds, or is violated only where a named exception "
            "excuses it (see below).", ""]
    sums = summary(records)
    rows = [[g, s["cells"], s["clean"], s["excused"], s["failing"], s["unknown"],
             ", ".join(f"{BY_NAME[n].label} {k}" for n, k in s["by_property"].items() if k)
             or "-"] for g, s in sums.items()]
    out += _table(["gate", "cells", "clean", "of which excused", "failing", "unknown only",
                   "failing cells by property"], rows) + [""]
    out += ["## Properties", ""]
    out += _table(["label", "property", "kind", "judged", "counted when"],
                  [[p.label, p.name, p.kind, "yes" if p.judged else "no", p.summary]
                   for p in (BY_NAME[n] for n in VERDICT_PROPERTIES)]) + [""]
    out += ["Cell legend: the labels of the violated judged properties; `*` only where a named "
            "exception excuses it; `?` unknown; `-` every judged property holds; `=` before "
            "them: the same cell as this deployment's in an earlier row or block (the gate "
            "explores the two in the same scope), shown there.", ""]
    for in_block in _blocks(space, records, aliases):
        block, first = in_block[0]["block"], in_block[0]
        varied = [k for k in space.axes if len({json.dumps(_key_value(r, k))
                                               for r in in_block}) > 1]
        fixed = {k: v for k, v in first["deployment"].items() if k not in varied}
        own = next((r for r in in_block if "same_as" not in r), first)
        budgets = {k: v for k, v in own["scope"].items() if k != "system" and v}
        out += [f"## {block}", "",
                "Fixed: " + ", ".join(f"{k}={v}" for k, v in fixed.items()) + ".",
                "Fault scope: " + ", ".join(f"{k}={v}" for k, v in budgets.items()) + ".", ""]
        deployments = list(dict.fromkeys(json.dumps([_key_value(r, k) for k in varied])
                                         for r in in_block))
        cells = {(json.dumps([_key_value(r, k) for k in varied]), r["policy"]): r
                 for r in in_block}
        rows = [json.loads(d) + [_entry_text(cells[(d, g)]) if (d, g) in cells else ""
                                 for g in gates] for d in deployments]
        out += _table(varied + gates, [[str(x) for x in row] for row in rows]) + [""]
    out += ["## Named exceptions", "",
            "Where no gate can make a property hold. An exception excuses only the "
            "(property, cause) pairs it names, in the deployments it names.", ""]
    for e in EXCEPTIONS:
        hit = sum(1 for r in records if any(
            (r["properties"][n]["excused_by"] or "").count(e.name) for n in JUDGED))
        excuses = ", ".join("every property" if p == "*" else f"{p} ({c})"
                            for p, c in e.excuses)
        out += [f"- **{e.name}** (excuses {excuses}; used by {hit} cells): {e.reason} "
                f"Remedy: {e.remedy}."]
    out += ["", "## A witness for every property", "",
            "The shortest violation of each judged property anywhere in the matrix (a property "
            "no gate violates would be vacuous here):", ""]
    for name, w in witnesses(records).items():
        if w is None:
            out.append(f"- **{name}**: NO WITNESS in this space: its verdicts here say nothing")
            continue
        where = ", ".join(f"{k}={_key_value(w, k)}" for k in space.axes)
        out.append(f"- **{name}** ({w['cause']}): `{w['gate']}` at {where}, "
                   f"{w['length']} steps: `{_trace_text(w['trace'])}`")
    vacuous = sum(1 for r in records if any(v is False for v in r["sometimes"].values()))
    out += ["", "## Sometimes coverage", "",
            f"{vacuous} of {len(records)} cells never reach at least one situation the "
            "deployment allows; per situation, the cells that never reach it:", ""]
    out += _table(["situation", "cells not reaching it", "cells where it cannot happen"],
                  [[name, sum(r["sometimes"].get(name) is False for r in records),
                    sum(r["sometimes"].get(name) is None for r in records)]
                   for name in SOMETIMES_CHECKS]) + [""]
    out += ["## Provenance", "",
            f"Commit {meta['code']['commit']} (dirty: {meta['code']['dirty']}); "
            f"{meta['run']['cells']} cells; regenerate with `{meta['command']}`. How long the "
            "invocation took, and on what, is in `timings.json` (kept out of the results).", ""]
    return "\n".join(out)


def _key_value(record: dict, key: str):
    """A deployment key's value in a cell record; a key the record leaves out (the
    transport's own, e.g. `execution_record` where no design reads it) has its default."""
    return record["deployment"].get(key, getattr(SystemConfig(), key))


def liveness_name() -> str:
    return next(n for n in VERDICT_PROPERTIES if BY_NAME[n].kind == LIVENESS)


RUN_RESULT_KEYS = ("cells", "code")


def write_outputs(space: Space, run: dict, out: Path, command: str) -> List[dict]:
    """Annotate the records and write every file; returns the annotated records.

    manifest.json and every other file hold only what the results are (so their hashes change
    only when a result can); timings.json holds how long this invocation took and on what."""
    records = [annotate(r) for r in run["records"]]
    meta = manifest(command, space.as_dict())
    meta["run"] = {k: run[k] for k in RUN_RESULT_KEYS}
    timings = {k: v for k, v in run.items()
               if k not in RUN_RESULT_KEYS + ("records", "aliases")}
    timings["explore_seconds_of_all_cells"] = round(sum(r["seconds"] for r in records), 1)
    timings["model"] = model_build   # compiled or from source: the same results, not speed
    meta["blocks"] = sorted({r["block"] for r in records})
    lines = "".join(json.dumps(cell_json(r), sort_keys=True) + "\n" for r in records)
    text = verify_md(space, records, meta, run.get("aliases", ()))
    table = verdicts_csv(records)
    write_atomic(out / "cells.jsonl", lines)
    write_atomic(out / "verdicts.csv", table)
    write_atomic(out / "VERIFY.md", text)
    write_json(out / "timings.json", timings)
    write_json(out / "manifest.json", meta)
    return records
