"""Figures made only from a sweep's result files (`results.csv`, `manifest.json`).

For every swept parameter: the share of sessions that met a duplicate delivery, and a stall,
one line per policy with a 95% Wilson band (sessions pooled over replications and over the
other grid parameters). For the first two parameters: a heatmap per policy. Across the sweep:
the CDFs of stall durations and of time to recover, per policy. Every figure is written as PNG
and SVG, carries a caption naming the sweep and the manifest's hash, and the points it plots
are written to `figures/data.json` so they can be checked against the rows.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Dict, List

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from model.monitor import DURATION_EDGES  # noqa: E402

from .des.stats import wilson  # noqa: E402
from .sweep.results import load_results  # noqa: E402

RATES = {"duplicate_delivery": "sessions with a duplicate delivery (%)",
         "stall": "sessions with a stall (%)"}


def manifest_hash(folder: Path) -> str:
    return hashlib.sha256((Path(folder) / "manifest.json").read_bytes()).hexdigest()[:12]


def _caption(fig, title: str, digest: str, note: str = "") -> None:
    fig.text(0.01, 0.005, f"sweep: {title} · manifest sha256 {digest}" +
             (f" · {note}" if note else ""), fontsize=7, color="#555555", ha="left",
             va="bottom")


def _save(fig, out: Path, name: str) -> List[str]:
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{name}.png", out / f"{name}.svg"]
    fig.savefig(paths[0], dpi=130)
    fig.savefig(paths[1])
    plt.close(fig)
    return [str(p) for p in paths]


def rate_points(frame: pd.DataFrame, param: str, name: str) -> Dict[str, List[dict]]:
    """policy -> [{x, k, n, p, lo, hi}]: sessions that met `name`, pooled per value of param."""
    out: Dict[str, List[dict]] = {}
    for policy, rows in frame.groupby("policy", sort=False):
        points = []
        for x, group in rows.groupby(param):
            w = wilson(int(group[f"sessions_affected.{name}"].sum()),
                       int(group["sessions"].sum()))
            points.append({"x": x.item() if hasattr(x, "item") else x, **w})
        out[str(policy)] = points
    return out


def histogram_cdf(frame: pd.DataFrame, prefix: str) -> Dict[str, dict]:
    """policy -> {edges, cdf, n}: the pooled duration histogram as a CDF at the bin edges."""
    columns = [f"{prefix}.le_{edge:g}" for edge in DURATION_EDGES]
    out = {}
    for policy, rows in frame.groupby("policy", sort=False):
        counts = rows[columns].sum().to_numpy(dtype=float)
        total = counts.sum()
        out[str(policy)] = {"edges": [e for e in DURATION_EDGES], "n": int(total),
                            "cdf": (np.cumsum(counts) / total).tolist() if total else []}
    return out


def make_figures(folder: Path) -> Dict[str, object]:
    """Write every figure of a sweep folder; returns the plotted data and the file paths."""
    folder = Path(folder)
    frame = load_results(folder)
    manifest = frame.attrs["manifest"]
    title, digest = manifest["config"]["title"], manifest_hash(folder)
    params = [c for c in frame.columns if c.startswith("param.")]
    out = folder / "figures"
    data: Dict[str, object] = {"manifest_sha256": digest, "rates": {}, "cdf": {}}
    files: List[str] = []
    for param in params:
        label = param[len("param."):]
        fig, axes = plt.subplots(1, len(RATES), figsize=(11, 4.2))
        for ax, (name, ylabel) in zip(axes, RATES.items()):
            points = rate_points(frame, param, name)
            data["rates"].setdefault(label, {})[name] = points
            numeric = all(isinstance(p["x"], (int, float)) for ps in points.values() for p in ps)
            for policy, ps in points.items():
                xs = [p["x"] for p in ps] if numeric else list(range(len(ps)))
                line, = ax.plot(xs, [100 * p["p"] for p in ps], marker="o", label=policy)
                ax.fill_between(xs, [100 * p["lo"] for p in ps], [100 * p["hi"] for p in ps],
                                color=line.get_color(), alpha=0.12, linewidth=0)
            if not numeric:
                ax.set_xticks(range(len(ps)), [str(p["x"]) for p in ps])
            ax.set_xlabel(label + (" (s)" if label.startswith("timing.") and
                                   not label.endswith("rate") else ""))
            ax.set_ylabel(ylabel)
            ax.set_ylim(bottom=0)
            ax.grid(alpha=0.3)
        axes[0].legend(fontsize=8)
        fig.suptitle(f"{title}: against {label}")
        _caption(fig, title, digest, "bands: 95% Wilson intervals, sessions pooled over "
                                     "replications and the other parameters")
        fig.tight_layout(rect=(0, 0.03, 1, 1))
        files += _save(fig, out, f"rates_by_{label.replace('.', '_')}")
    if len(params) >= 2:
        files += _heatmaps(frame, params[:2], title, digest, out, data)
    for prefix, xlabel in (("stall_histogram", "stall duration (s)"),
                           ("recovery_histogram", "time to recover (s), from a broken stream "
                                                  "to the next data")):
        cdfs = histogram_cdf(frame, prefix)
        data["cdf"][prefix] = cdfs
        fig, ax = plt.subplots(figsize=(6.5, 4.2))
        for policy, c in cdfs.items():
            if c["n"]:
                edges = [min(e, 2 * DURATION_EDGES[-2]) for e in c["edges"]]
                ax.step(edges, c["cdf"], where="post", label=f"{policy} (n={c['n']})")
        ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("fraction of episodes ≤ x")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        if any(c["n"] for c in cdfs.values()):
            ax.legend(fontsize=8)
        else:
            ax.text(0.5, 0.5, "no episodes in this sweep", transform=ax.transAxes,
                    ha="center", color="#555555")
        ax.set_title(f"{title}: {xlabel.split(' (')[0]} CDF")
        _caption(fig, title, digest, "steps at the histogram's bin edges")
        fig.tight_layout(rect=(0, 0.03, 1, 1))
        files += _save(fig, out, prefix.replace("_histogram", "_cdf"))
    (out / "data.json").write_text(json.dumps(data, indent=1, sort_keys=True, default=float))
    return {"files": files, "data": data}


def _heatmaps(frame, params, title, digest, out, data) -> List[str]:
    files = []
    a, b = params
    for name in RATES:
        policies = list(dict.fromkeys(frame["policy"]))
        cols = min(3, len(policies))
        nrows = -(-len(policies) // cols)
        fig, axes = plt.subplots(nrows, cols, figsize=(3.6 * cols + 1.5, 3.3 * nrows + 0.6),
                                 squeeze=False, layout="constrained")
        for ax in axes.flat[len(policies):]:
            ax.axis("off")
        grid = {}
        for ax, policy in zip(axes.flat, policies):
            rows = frame[frame.policy == policy]
            table = rows.groupby([a, b])[[f"sessions_affected.{name}", "sessions"]].sum()
            share = (table[f"sessions_affected.{name}"] / table["sessions"]).unstack(b)
            grid[policy] = {"rows": [str(v) for v in share.index],
                            "columns": [str(v) for v in share.columns],
                            "values": share.to_numpy().tolist()}
            image = ax.imshow(100 * share.to_numpy(), vmin=0, vmax=100, cmap="viridis",
                              aspect="auto")
            ax.set_xticks(range(len(share.columns)), [str(v) for v in share.columns],
                          fontsize=7)
            ax.set_yticks(range(len(share.index)), [str(v) for v in share.index], fontsize=7)
            ax.set_title(policy, fontsize=9)
            ax.set_xlabel(b[len("param."):], fontsize=8)
        for row in axes:
            row[0].set_ylabel(a[len("param."):], fontsize=8)
        fig.colorbar(image, ax=axes.ravel().tolist(), label=RATES[name])
        fig.suptitle(f"{title}: {RATES[name]}")
        fig.get_layout_engine().set(rect=(0, 0.05, 1, 0.95))
        _caption(fig, title, digest, "sessions pooled over replications")
        data.setdefault("heatmaps", {})[name] = grid
        files += _save(fig, out, f"heatmap_{name}")
    return files
