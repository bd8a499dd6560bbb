"""Figures made only from a sweep's result files (`results.csv`, `manifest.json`).

Nothing that changes the answer is pooled: every plotted point is one grid point and one policy
row, its value the mean over replications and its bar a 95% t-interval of the replication
values (the replication is the independent unit); a row with no event in any replication is a
hollow marker at 0 with a bar up to its one-sided 95% upper bound.

For each swept parameter plotted on the x axis (the numeric ones; else the first), one figure
with one row of panels per combination of the other grid parameters (the facets) and five
columns: the share of sessions with a duplicate delivery and with a stall, and beside them what
safety costs (sessions abandoned, re-initializations per session-hour, calls the servers
executed again per session-hour). Policies are offset slightly along x and drawn with distinct
markers, so coinciding lines stay visible; a panel names the policies at 0 in every point.
Stall and recovery CDFs are drawn per grid point (small multiples). Every figure carries its
deployment and the manifest's hash; the plotted points go to `figures/data.json`. Figures are
`matplotlib.figure.Figure` objects, never pyplot state: importing this module leaves the
backend alone (notebooks keep plotting inline).
"""
from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path
from typing import Dict, List, Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.transforms import ScaledTranslation

from model.monitor import DURATION_EDGES

from .des.stats import frame_interval
from .sweep.results import load_results

MARKERS = "osD^vP*X"

# (key, y label, kind, columns of the numerator, denominator column of a "ratio")
PANELS = [
    ("duplicate_delivery", "sessions with a duplicate delivery (%)", "share",
     ["sessions_affected.duplicate_delivery"], None),
    ("duplicate_execution", "sessions with a duplicate execution (%)\n(judged causes)",
     "share", ["sessions_affected.duplicate_execution"], None),
    ("stall", "sessions with a stall (%)", "share", ["sessions_affected.stall"], None),
    ("abandoned", "sessions abandoned: client failed or gave up (%)", "share",
     ["sessions_failed", "sessions_gave_up"], None),
    ("reinits", "re-initializations per session-hour", "rate", ["costs.reinit"], None),
    ("reexecutions", "calls executed again by the servers\nper session-hour (either cause)",
     "rate", ["violations.duplicate_execution", "costs.reexecuted_call"], None),
]
#: the panels of the costs figure: what a design costs in requests, recovery and memory
COST_FIGURE = [
    ("requests_per_call", "HTTP requests per completed call", "ratio",
     ["requests.handshake", "requests.call", "requests.resume", "requests.poll"],
     "calls_completed"),
    ("recovery_seconds", "seconds from a broken stream\nto the next data (mean)", "ratio",
     ["recovery_seconds"], "recoveries"),
    ("entries_held", "entries the servers hold (time-average):\nsessions, buffered events, "
     "execution records", "value", ["memory.mean.entries"], None),
    ("entries_peak", "entries the servers hold (largest sample)", "value",
     ["memory.peak.entries"], None),
]
#: the panels of PANELS that are costs (their titles say so)
COST_PANELS = ("abandoned", "reinits", "reexecutions")


def manifest_hash(folder: Path) -> str:
    return hashlib.sha256((Path(folder) / "manifest.json").read_bytes()).hexdigest()[:12]


def deployment_line(manifest: dict) -> str:
    """The base deployment in one line, leaving out what the grid sweeps."""
    base = manifest.get("base_config", {})
    s, t = base.get("system", {}), base.get("timing", {})
    spec = manifest.get("config", {})
    swept = set(spec.get("grid", {}))
    swept |= {key for settings in spec.get("deployments", {}).values() for key in settings}
    parts = [("system.instances", f"{s.get('instances')} instances"),
             ("system.lb", f"lb {s.get('lb')}"), ("system.store", f"store {s.get('store')}"),
             ("system.buffer", f"buffer {s.get('buffer')}"),
             ("system.buffer_capacity", f"buffer capacity {s.get('buffer_capacity')}"),
             ("system.event_ids", f"ids {s.get('event_ids')}"),
             ("timing.restart_period", f"rolling restart every {t.get('restart_period')} s"),
             ("timing.drop_rate", f"{t.get('drop_rate')} drops/s per stream"),
             ("timing.duration", f"{t.get('duration')} s simulated per run")]
    return "deployment: " + ", ".join(text for key, text in parts if key not in swept)


def _caption(fig, title: str, digest: str, note: str) -> None:
    fig.text(0.01, 0.004, f"sweep: {title} · manifest sha256 {digest} · {note}", fontsize=7,
             color="#555555", ha="left", va="bottom", wrap=True)


def _save(fig, out: Path, name: str) -> List[str]:
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{name}.png", out / f"{name}.svg"]
    fig.savefig(paths[0], dpi=110)
    fig.savefig(paths[1])
    return [str(p) for p in paths]


def _plain(x):
    return x.item() if hasattr(x, "item") else x


def facets(frame: pd.DataFrame, params: List[str], x: str) -> List[Dict[str, object]]:
    """Every combination of the grid parameters other than `x` (one dict per facet)."""
    others = [p for p in params if p != x]
    values = [list(dict.fromkeys(frame[p].tolist())) for p in others]
    return [dict(zip(others, combo)) for combo in itertools.product(*values)]


def panel_points(frame: pd.DataFrame, x: str, facet: Dict[str, object], kind: str,
                 columns: Sequence[str], denominator=None) -> Dict[str, List[dict]]:
    """policy row -> [{x, mean, lo, hi, zero, n}] for one facet, in grid order."""
    mask = np.ones(len(frame), dtype=bool)
    for key, value in facet.items():
        mask &= (frame[key] == value).to_numpy()
    rows = frame[mask]
    out: Dict[str, List[dict]] = {}
    for policy in dict.fromkeys(frame["policy"]):
        mine = rows[rows.policy == policy]
        out[str(policy)] = [{"x": _plain(v),
                             **frame_interval(mine[mine[x] == v], kind, columns,
                                              denominator)}
                            for v in dict.fromkeys(frame[x].tolist())]
    return out


def x_params(frame: pd.DataFrame, params: List[str]) -> List[str]:
    numeric = [p for p in params if pd.api.types.is_numeric_dtype(frame[p])
               and frame[p].nunique() > 1]
    return numeric or params[:1]


def facet_title(facet: Dict[str, object]) -> str:
    return ", ".join(f"{k[len('param.'):]} = {v}" for k, v in facet.items()) or "all points"


def _draw_panel(ax, fig, points: Dict[str, List[dict]], kind: str, numeric: bool,
                colors: Dict[str, str]) -> List[str]:
    """Draw one panel; returns the policy rows that are 0 in every point."""
    scale = 100.0 if kind == "share" else 1.0
    zero_everywhere = []
    n = len(points)
    for i, (policy, ps) in enumerate(points.items()):
        xs = [p["x"] for p in ps] if numeric else list(range(len(ps)))
        shift = ScaledTranslation((i - (n - 1) / 2) * 0.045, 0, fig.dpi_scale_trans)
        mean = np.array([scale * p["mean"] for p in ps])
        lo = np.array([scale * (p["lo"] if p["lo"] is not None else p["mean"]) for p in ps])
        hi = np.array([scale * (p["hi"] if p["hi"] is not None else p["mean"]) for p in ps])
        color = colors[policy]
        # shifted artists do not update the data limits: an invisible unshifted copy does
        ax.plot(xs + xs, list(lo) + list(hi), linestyle="none", marker="none")
        ax.plot(xs, mean, color=color, linewidth=1.2, alpha=0.8, label=policy,
                marker=MARKERS[i % len(MARKERS)], markersize=5, transform=ax.transData + shift,
                markerfacecolor=color)
        ax.errorbar(xs, mean, yerr=[mean - lo, hi - mean], fmt="none", ecolor=color,
                    elinewidth=1, capsize=2, transform=ax.transData + shift)
        zeros = [j for j, p in enumerate(ps) if p.get("zero")]
        if zeros:
            ax.plot([xs[j] for j in zeros], [0] * len(zeros), linestyle="none",
                    marker=MARKERS[i % len(MARKERS)], markersize=5, markerfacecolor="white",
                    color=color, transform=ax.transData + shift)
        if ps and all(p.get("zero") for p in ps):
            zero_everywhere.append(policy)
    if zero_everywhere:
        ax.text(0.02, 0.97, "0 in every point: " + ", ".join(zero_everywhere), fontsize=6.5,
                transform=ax.transAxes, va="top", ha="left", color="#333333",
                bbox=dict(facecolor="white", alpha=0.8, edgecolor="none", pad=1.5), wrap=True)
    return zero_everywhere


def _rates_figure(frame, params, x, title, digest, deployment, out, data,
                  panels=None, name: str = "rates") -> List[str]:
    """One figure against `x`: a row of `panels` (PANELS: safety, then its cost; COST_FIGURE:
    requests, recovery and memory) per facet."""
    panels = PANELS if panels is None else panels
    policies = [str(p) for p in dict.fromkeys(frame["policy"])]
    colors = {p: f"C{i}" for i, p in enumerate(policies)}
    cuts = facets(frame, params, x)
    label = x[len("param."):]
    numeric = pd.api.types.is_numeric_dtype(frame[x])
    values = list(dict.fromkeys(frame[x].tolist()))
    fig = Figure(figsize=(4.1 * len(panels), 3.3 * len(cuts) + 1.3))
    axes = fig.subplots(len(cuts), len(panels), squeeze=False)
    record = data[name].setdefault(label, [])
    for r, facet in enumerate(cuts):
        entry = {"facet": {k[len("param."):]: _plain(v) for k, v in facet.items()},
                 "panels": {}}
        for c, (key, ylabel, kind, columns, denominator) in enumerate(panels):
            ax = axes[r][c]
            points = panel_points(frame, x, facet, kind, columns, denominator)
            entry["panels"][key] = {"kind": kind, "points": points,
                                    "zero_everywhere": _draw_panel(ax, fig, points, kind,
                                                                   numeric, colors)}
            if numeric and max(values) / max(min(values), 1e-9) >= 8:
                ax.set_xscale("log", base=2)
                ax.set_xticks(values, [f"{v:g}" for v in values])
                ax.minorticks_off()
            elif not numeric:
                ax.set_xticks(range(len(values)), [str(v) for v in values])
            unit = " (s)" if label.startswith("timing.") and not label.endswith("rate") else ""
            ax.set_xlabel(label + unit, fontsize=8)
            ax.set_ylabel(ylabel, fontsize=8)
            ax.set_ylim(bottom=0)
            ax.tick_params(labelsize=7)
            ax.grid(alpha=0.3)
            ax.set_title(("cost: " if key in COST_PANELS or panels is not PANELS else "")
                         + facet_title(facet), fontsize=8.5)
        record.append(entry)
    handles, names = axes[0][0].get_legend_handles_labels()
    clients = data.get("clients", {})
    fig.legend(handles, [f"{n} ({clients.get(n, '?')} client)" for n in names],
               loc="upper center", ncol=len(names), fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, 0.995))
    what = (f"safety (left {len(PANELS) - len(COST_PANELS)}) and its cost (right "
            f"{len(COST_PANELS)})" if panels is PANELS else "requests, recovery and memory")
    fig.suptitle(f"{title}: {what} against {label}\n{deployment}", fontsize=10, y=0.965)
    _caption(fig, title, digest, "each point: mean over replications of one grid point, bar "
             "95% t-interval; hollow at 0: none in any replication, bar = one-sided 95% upper "
             "bound; policies offset along x so none hides another")
    fig.tight_layout(rect=(0, 0.025, 1, 0.92))
    return _save(fig, out, f"{name}_by_{label.replace('.', '_')}")


def _cdf_figure(frame, params, prefix, xlabel, title, digest, deployment, out, data):
    columns = [f"{prefix}.le_{edge:g}" for edge in DURATION_EDGES]
    cuts = facets(frame, params, params[0])
    xs = list(dict.fromkeys(frame[params[0]].tolist()))
    fig = Figure(figsize=(3.2 * len(xs) + 0.8, 2.8 * len(cuts) + 1.2))
    axes = fig.subplots(len(cuts), len(xs), squeeze=False, sharey=True)
    found = {}
    for r, facet in enumerate(cuts):
        for c, value in enumerate(xs):
            here = {**facet, params[0]: value}
            mask = np.ones(len(frame), dtype=bool)
            for key, v in here.items():
                mask &= (frame[key] == v).to_numpy()
            ax, rows = axes[r][c], frame[mask]
            cell = {}
            for i, (policy, group) in enumerate(rows.groupby("policy", sort=False)):
                counts = group[columns].sum().to_numpy(dtype=float)
                total = counts.sum()
                cell[str(policy)] = {"n": int(total), "cdf": (np.cumsum(counts) / total).tolist()
                                     if total else []}
                if total:
                    edges = [min(e, 2 * DURATION_EDGES[-2]) for e in DURATION_EDGES]
                    ax.step(edges, cell[str(policy)]["cdf"], where="post", color=f"C{i}",
                            label=f"{policy} (n={int(total)})")
            if not any(v["n"] for v in cell.values()):
                ax.text(0.5, 0.5, "no episodes", transform=ax.transAxes, ha="center",
                        color="#555555", fontsize=8)
            else:
                ax.legend(fontsize=6)
            ax.set_xscale("log")
            ax.set_ylim(0, 1.02)
            ax.grid(alpha=0.3)
            ax.tick_params(labelsize=7)
            ax.set_title(", ".join(f"{k[len('param.'):]}={v}" for k, v in here.items()),
                         fontsize=7.5)
            if r == len(cuts) - 1:
                ax.set_xlabel(xlabel, fontsize=7.5)
            if c == 0:
                ax.set_ylabel("fraction of episodes <= x", fontsize=7.5)
            found[json.dumps({k[len("param."):]: _plain(v) for k, v in here.items()},
                             sort_keys=True)] = cell
    data["cdf"][prefix] = {"edges": list(DURATION_EDGES), "points": found}
    fig.suptitle(f"{title}: {xlabel.split(' (')[0]} CDF per grid point\n{deployment}",
                 fontsize=10)
    _caption(fig, title, digest, "episodes pooled over the replications of one grid point; "
             "steps at the histogram's bin edges")
    fig.tight_layout(rect=(0, 0.03, 1, 0.95))
    return _save(fig, out, prefix.replace("_histogram", "_cdf"))


def make_figures(folder: Path) -> Dict[str, object]:
    """Write every figure of a sweep folder; returns the plotted data and the file paths."""
    folder = Path(folder)
    frame = load_results(folder)
    manifest = frame.attrs["manifest"]
    title, digest = manifest["config"]["title"], manifest_hash(folder)
    deployment = deployment_line(manifest)
    params = [c for c in frame.columns if c.startswith("param.")]
    out = folder / "figures"
    clients = {}
    if "client_profile" in frame.columns:
        clients = {str(p): str(g["client_profile"].iloc[0]) for p, g in
                   frame.groupby("policy", sort=False)}
    data: Dict[str, object] = {"manifest_sha256": digest, "deployment": deployment,
                               "clients": clients, "rates": {}, "costs": {}, "cdf": {}}
    files: List[str] = []
    for x in x_params(frame, params):
        files += _rates_figure(frame, params, x, title, digest, deployment, out, data)
        files += _rates_figure(frame, params, x, title, digest, deployment, out, data,
                               COST_FIGURE, "costs")
    for prefix, xlabel in (("stall_histogram", "stall duration (s)"),
                           ("recovery_histogram", "time to recover (s)")):
        files += _cdf_figure(frame, params, prefix, xlabel, title, digest, deployment, out,
                             data)
    (out / "data.json").write_text(json.dumps(data, indent=1, sort_keys=True, default=float))
    return {"files": files, "data": data}
