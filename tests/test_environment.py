"""environment.yml (conda) and pyproject.toml (pip) list the same dependencies."""
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _normalise(spec: str) -> str:
    return re.sub(r"\s+", "", spec).lower()


def _pyproject_specs() -> set:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    project = data["project"]
    specs = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        specs.extend(extra)
    return {_normalise(s) for s in specs}


def _conda_specs() -> set:
    """Conda dependencies and the pip ones listed under them, minus the interpreter, pip itself
    and the project."""
    text = (ROOT / "environment.yml").read_text().split("dependencies:", 1)[1]
    specs = {m.group(1).strip() for m in re.finditer(r"^ +- (\S.*)$", text, re.MULTILINE)}
    return {_normalise(s) for s in specs
            if s not in ("pip", "pip:", "-e .") and not s.startswith("python=")}


def test_environment_yml_lists_the_pyproject_dependencies():
    assert _conda_specs() == _pyproject_specs()


def test_environment_installs_the_project_itself():
    assert "- -e ." in (ROOT / "environment.yml").read_text()
