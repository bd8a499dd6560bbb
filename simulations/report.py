"""`python -m simulations report DIR`: a Markdown report of a results folder, ready to paste.

DIR is a DES comparison (`summary.json`, from `run`) or a sweep (`results.csv`, from `sweep`);
both have a `manifest.json`. The report states the question, the configuration as run, the
rates and their costs with replication-level intervals (one table per facet for a sweep: a row
per policy, the swept values as columns), the figures found in `DIR/figures` (linked relative to
REPORT.md, or inlined), for a DES run the explorer's verdicts for its own deployment from the
committed verification matrix (or that none exist), and the provenance.
"""
from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import List, Optional

from model import properties
from model.properties import LABELS

from . import figures, inputs, render
from .figures import manifest_hash
from .provenance import write_atomic
from .verify import MATRIX, lookup

QUESTION = (
    "When must an MCP server refuse to resume a stream? A resumption (`GET` + `Mcp-Session-Id`"
    " + `Last-Event-ID`) can be well formed and still unresumable: the session may be gone, the"
    " cursor may belong to another session, the session may have been recreated since the "
    "cursor was issued, or the buffer may no longer hold it. This report compares how "
    "resumption-validation policies fare on the properties that matter: duplicate delivery, "
    "duplicate side effects, silent loss, cross-session delivery, stalls and needless "
    "re-initialization.")


def _table(header: List[str], rows: List[List[str]]) -> str:
    return render.markdown(("", header, rows), with_title=False)


def _config_table(config: dict) -> str:
    rows = [[f"system.{k}", f"`{v}`"] for k, v in config.get("system", {}).items()]
    rows += [[f"timing.{k}", f"`{v}`"] for k, v in config.get("timing", {}).items()]
    return _table(["key", "value"], rows)


def _des_section(folder: Path, matrix: Path) -> List[str]:
    data = json.loads((folder / "summary.json").read_text())
    summary, config = data["summary"], data["config"]
    rows = [p for p in config["run"]["policies"] if p in summary]
    out = ["## Configuration", "",
           f"{config['run']['replications']} replications, seed {config['run']['seed']}; "
           "common random numbers across policy rows. Clients: "
           + ", ".join(f"`{r}` with `{summary[r]['client_profile']}`" for r in rows)
           + f" (`client.profile` = `{config['client']['profile']}`).", "",
           _config_table(config), "", "## Rates and costs (95% intervals over replications)",
           ""]
    for table in render.summary_tables(summary, rows, config["run"]["baseline"]):
        out += [render.markdown(table), ""]
    out += [render.legend(), ""]
    gates = list(dict.fromkeys(r.partition("+")[0] for r in rows))
    out += _verdicts_for(config["system"], gates, Path(matrix))
    return out


def _verdicts_for(system: dict, policies: List[str], matrix: Path) -> List[str]:
    """Explorer verdicts for the run's own deployment, from the committed matrix, or why none."""
    out = ["## Explorer verdicts for this deployment", ""]
    cells = lookup.load_cells(matrix)
    if cells is None:
        return out + [f"No verification matrix at `{matrix}` (run `make verification`); no "
                      "verdicts for this deployment exist yet.", ""]
    found, about = lookup.nearest(cells, system, policies)
    if not found:
        choice = ", ".join(f"{k}={system.get(k)}" for k in lookup.DECIDING)
        return out + [f"None exist: no cell of `{matrix}` has {choice}. Explore it with "
                      "`python -m simulations explore --policy P --set system.KEY=VALUE`.", ""]
    differs = "; ".join(f"{k} {a} (this run: {b})" for k, (a, b) in about["differs"].items())
    scope = ", ".join(f"{k}={v}" for k, v in about["scope"].items() if v)
    out += [f"No explored scope is this fleet; these cells of `{matrix}` (block "
            f"\"{about['block']}\") agree with it on every choice that decides a verdict "
            f"({', '.join(lookup.DECIDING)}). They differ in: {differs or 'nothing named'}. "
            f"Fault scope: {scope}.", ""]
    judged = list(lookup.JUDGED)
    out.append(_table(["gate", "client"] + [LABELS[n] for n in judged],
                      [[c["policy"], c["client_profile"]] + lookup.verdict_cells(c)
                       for c in found]))
    return out + ["", properties.legend(judged), ""]


def _facet_tables(frame, params: List[str]) -> List[str]:
    """One compact table per facet and panel: a row per policy, the swept values as columns."""
    out: List[str] = []
    for x in figures.x_params(frame, params):
        values = list(dict.fromkeys(frame[x].tolist()))
        label = x[len("param."):]
        for facet in figures.facets(frame, params, x):
            out += [f"### {figures.facet_title(facet)}", ""]
            for key, ylabel, kind, columns, denominator in figures.PANELS + figures.COST_FIGURE:
                points = figures.panel_points(frame, x, facet, kind, columns, denominator)
                scale, digits = {"share": (100, 1), "value": (1, 0)}.get(kind, (1, 2))
                cost = key in figures.COST_PANELS or \
                    key in [panel[0] for panel in figures.COST_FIGURE]
                out += [f"{'Cost: ' if cost else ''}"
                        f"{ylabel.replace(chr(10), ' ')}, by {label}:", ""]
                out.append(_table(["policy"] + [f"{label} = {v}" for v in values],
                                  [[p] + [render.interval(pt, scale, digits) for pt in ps]
                                   for p, ps in points.items()]))
                out.append("")
    return out


def _sweep_section(folder: Path, manifest: dict) -> List[str]:
    import pandas as pd
    frame = pd.read_csv(folder / "results.csv")
    spec = manifest["config"]
    params = [c for c in frame.columns if c.startswith("param.")]
    clients = ""
    if "client_profile" in frame.columns:
        clients = " Clients: " + ", ".join(
            f"`{p}` with `{g['client_profile'].iloc[0]}`"
            for p, g in frame.groupby("policy", sort=False)) + "."
    out = ["## Configuration", "", f"Sweep `{spec['title']}` over "
           + ", ".join(f"`{k}` in {v}" for k, v in spec["grid"].items())
           + f"; overrides {spec['set'] or 'none'}; {spec['replications']} replications per "
           f"point, seed {spec['seed']}; every point and policy row uses the same replication "
           f"seeds.{clients}", "", "Base deployment (the base config with the overrides, before "
           "any grid value):", "", _config_table(manifest.get("base_config", {})), "",
           "## Rates and costs per grid point (95% intervals over replications)", "",
           "Each cell: mean over the replications of one grid point, `[lo, hi]` a Student "
           "t-interval of the replication values; `0 (< x)`: none in any replication, x the "
           "one-sided 95% upper bound. Shares are % of sessions; rates per session-hour; requests "
           "per completed call and seconds per recovery are ratios within each replication; "
           "entries held are time-averages (and the largest sample) of the session records, "
           "buffered events and execution records the servers keep.", ""]
    return out + _facet_tables(frame, params)


def write_report(folder: Path, inline: bool = False, matrix: Path = MATRIX) -> Path:
    """Write `folder/REPORT.md` and return its path."""
    folder = Path(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    digest = manifest_hash(folder)
    out = [f"# Resumption policies: {folder.name}", "", "## The question", "", QUESTION, ""]
    if (folder / "summary.json").is_file():
        out += _des_section(folder, matrix)
    else:
        out += _sweep_section(folder, manifest)
    figures = sorted((folder / "figures").glob("*.png")) if (folder / "figures").is_dir() else []
    if figures:
        out += ["", "## Figures", ""]
        out += [f"![{png.stem}]({_image(png, inline)})" for png in figures]
    out += [""]
    code = manifest.get("code", {})
    packages = ", ".join(f"{k} {v}" for k, v in manifest.get("packages", {}).items())
    out += ["## Provenance", "", f"- results: `{folder}` (manifest sha256 `{digest}`)",
            f"- command: `python -m simulations {manifest.get('command', '?')}`",
            f"- code: commit `{code.get('commit')}`, uncommitted changes: {code.get('dirty')}",
            f"- packages: {packages}",
            f"- cite as: `{folder}/REPORT.md` with manifest `{digest}`", ""]
    path = folder / "REPORT.md"
    write_atomic(path, "\n".join(out))
    return path


def _image(png: Path, inline: bool) -> str:
    """A path relative to REPORT.md, or the PNG itself as a data URI (renders anywhere)."""
    if inline:
        return "data:image/png;base64," + base64.b64encode(png.read_bytes()).decode("ascii")
    return f"figures/{png.name}"


def describe_folder(folder: Path) -> Optional[str]:
    """None if `folder` can be reported on, else the one line that says why not."""
    folder = Path(folder)
    if not folder.is_dir():
        return f"{folder}: {'is a file, not' if folder.exists() else 'no such'} results folder"
    kind = inputs.folder_kind(folder)
    if kind is None:
        return f"{folder} has neither summary.json (a `run`) nor results.csv (a `sweep`)"
    try:
        if kind == "run":
            inputs.check_run_folder(folder)
        else:
            inputs.check_sweep_folder(folder)
    except ValueError as exc:
        return str(exc)
    return None
