"""One renderer: labels live in model/properties.py, tables and intervals are built only by
simulations/render/, so one change of wording or layout changes every output alike.

The checks read the sources (AST string constants), so a second label table or a hand-built
Markdown table anywhere in the project fails here, with the file named.
"""
import ast
from pathlib import Path

from model.properties import LABELS
from simulations.render import interval, markdown, text

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [p for package in ("model", "simulations", "mcp_resume_guard")
           for p in sorted((ROOT / package).rglob("*.py")) if "_native" not in p.parts]
RENDER = ROOT / "simulations" / "render"
#: the short labels tables print (DUP, SIDE, ...): the ones no ordinary word could be
SHORT_LABELS = {label for label in LABELS.values() if label.isupper()}


def _strings(path: Path):
    """Every string constant of a source file (f-string parts included) with its line."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value


def test_the_label_table_is_defined_once():
    found = [f"{p.relative_to(ROOT)}:{line} {value!r}" for p in SOURCES
             if p != ROOT / "model" / "properties.py"
             for line, value in _strings(p) if value in SHORT_LABELS]
    assert not found, "labels written outside model/properties.py:\n" + "\n".join(found)
    assert len(SHORT_LABELS) >= 9    # the check is not vacuous


def test_tables_are_built_only_by_the_renderer():
    found = [f"{p.relative_to(ROOT)}:{line}" for p in SOURCES if RENDER not in p.parents
             for line, value in _strings(p) if "---|" in value or "|---" in value]
    assert not found, "Markdown tables built outside simulations/render/:\n" + "\n".join(found)
    assert any("---|" in v for p in RENDER.glob("*.py") for _, v in _strings(p))


def test_intervals_are_written_only_by_the_renderer():
    found = [f"{p.relative_to(ROOT)}:{line}" for p in SOURCES if RENDER not in p.parents
             for line, value in _strings(p) if value.startswith(" (< ")]
    assert not found, "\n".join(found)


def test_markdown_tables_plain_and_aligned():
    table = ("t", ["a", "bb"], [["xyz", "1"]])
    assert markdown(table, with_title=False) == "| a | bb |\n|---|---|\n| xyz | 1 |"
    assert markdown(table, with_title=False, aligned=True) == \
        "| a   | bb |\n|-----|----|\n| xyz | 1  |"
    assert text(table) == "t\na    bb\nxyz  1"


def test_an_interval_is_a_mean_with_bounds_or_a_zero_with_its_upper_bound():
    assert interval({"mean": 0.1234, "lo": 0.1, "hi": 0.15}, 100) == "12.3 [10.0, 15.0]"
    assert interval({"zero": True, "hi": 0.003}, 100, unit="%") == "0% (< 0.30%)"
    assert interval(None) == "-"
