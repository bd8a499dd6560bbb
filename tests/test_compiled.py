"""The compiled model and explorer (mypyc, `python -m simulations compile`) and the Python
sources give the same results, and each only ever loads a build made from its current sources
(the explorer's only beside the compiled model).

The comparison runs tests/compiled_snapshot.py twice in child processes, compiled and with
MCP_MODEL_PURE=1: reduced-space cells (verdicts, states, traces), the incident matrix and DES
replications, everything but CPU time. Where no build exists it skips, saying why; under
MCP_MODEL_COMPILED_REQUIRED=1 (set by .ci/run) that is a failure.
"""
import ast
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

import model
from model import native
from simulations import compile_model
from simulations.cli import main
from simulations.scenarios import INCIDENT_ROWS, SCENARIOS

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT / "tests" / "compiled_snapshot.py"


def _require_build():
    if not compile_model.is_current():
        reason = model.BUILD if not model.COMPILED else "no current build"
        if os.environ.get("MCP_MODEL_COMPILED_REQUIRED") == "1":
            pytest.fail(f"MCP_MODEL_COMPILED_REQUIRED=1 but the model is not compiled: {reason}")
        pytest.skip(f"the model is not compiled here: {reason}")


def _snapshot(pure: bool, scratch: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    if pure:
        env[native.PURE_ENV] = "1"
    scratch.mkdir()
    done = subprocess.run([sys.executable, str(SNAPSHOT), str(scratch)], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_compiled_and_pure_models_give_the_same_results(tmp_path):
    _require_build()
    with ThreadPoolExecutor(2) as pool:
        compiled, pure = pool.map(lambda p: _snapshot(p, tmp_path / str(p)), (False, True))
    modules = ("compiled", "state_module", "frontier_module", "world_module")
    assert [compiled.pop(key) for key in modules] == [True, ".so", ".so", ".so"]
    assert [pure.pop(key) for key in modules] == [False, ".py", ".py", ".py"]
    assert len(compiled["cells"]) >= 12 and len(compiled["incidents"]) == \
        len(SCENARIOS) * len(INCIDENT_ROWS)
    assert any(p["verdict"] == "violated" and c["traces"]
               for c in compiled["cells"] for p in c["properties"].values())
    assert compiled == pure


def test_the_build_loads_whatever_the_working_directory(tmp_path):
    """Imported from elsewhere (the installed project, not the checkout on sys.path), `model`
    still loads the build beside its sources when it is current."""
    _require_build()
    probe = ("import json, pathlib, model, model.state; print(json.dumps([model.__file__, "
             "model.COMPILED, pathlib.Path(model.state.__file__).suffix]))")
    env = {k: v for k, v in os.environ.items() if k not in (native.PURE_ENV, "PYTHONPATH")}
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    where, compiled, suffix = json.loads(done.stdout)
    assert (suffix == ".so") == compiled
    if Path(where).parent == ROOT / "model":   # the installed project is this checkout
        assert compiled


def _package_copy(tmp_path: Path) -> Path:
    """model/'s sources in a scratch package with a fake build (empty files) for them."""
    package = tmp_path / "model"
    package.mkdir()
    for source in (ROOT / "model").glob("*.py"):
        shutil.copy(source, package / source.name)
    build = package / native.NATIVE_DIR
    build.mkdir()
    for name in native.compiled_modules(str(package)) + [native.SHARED_LIBRARY]:
        (build / (name + EXTENSION_SUFFIXES[0])).touch()
    (build / native.DIGEST_FILE).write_text(native.source_digest(str(package)) + "\n")
    return package


def test_a_build_is_used_only_for_the_sources_it_was_made_from(tmp_path, monkeypatch):
    monkeypatch.delenv(native.PURE_ENV, raising=False)
    package = _package_copy(tmp_path)
    assert native.native_dir(str(package)) == (str(package / native.NATIVE_DIR),
                                               "compiled (mypyc)")
    monkeypatch.setenv(native.PURE_ENV, "1")
    found, why = native.native_dir(str(package))
    assert found is None and "MCP_MODEL_PURE is set" in why
    monkeypatch.delenv(native.PURE_ENV)
    with open(package / "resume.py", "a") as source:
        source.write("\n# an edit after the build\n")
    found, why = native.native_dir(str(package))
    assert found is None and "stale" in why


def test_a_build_missing_a_module_is_not_used(tmp_path, monkeypatch):
    monkeypatch.delenv(native.PURE_ENV, raising=False)
    package = _package_copy(tmp_path)
    (package / native.NATIVE_DIR / ("lb" + EXTENSION_SUFFIXES[0])).unlink()
    found, why = native.native_dir(str(package))
    assert found is None and "lacks lb" in why
    (package / native.NATIVE_DIR / native.DIGEST_FILE).unlink()
    assert native.native_dir(str(package))[0] is None


def test_compile_without_a_compiler_falls_back_and_says_why(monkeypatch, capsys):
    monkeypatch.setattr(compile_model, "is_current", lambda: False)
    monkeypatch.setattr(compile_model.shutil, "which", lambda name: None)
    before = sorted(p.name for p in (ROOT / "model").iterdir())
    assert main(["compile"]) == 0
    err = capsys.readouterr().err
    assert "not compiled, no C compiler" in err and "Python sources are used" in err
    assert main(["compile", "--require"]) == 1
    assert sorted(p.name for p in (ROOT / "model").iterdir()) == before


@pytest.mark.parametrize("package, module", [("simulations.explore", "frontier"),
                                             ("simulations.des", "world")])
def test_an_engine_group_loads_its_build_only_beside_the_compiled_model(package, module):
    """With the model from source, the explorer's inner loop and the DES's hot loop run from
    source too (their builds call into the compiled model); with current builds of all, they
    load compiled."""
    probe = (f"import json, pathlib, {package} as e, {package}.{module} as f;"
             "print(json.dumps([e.COMPILED, e.BUILD, pathlib.Path(f.__file__).suffix]))")
    env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    runs = {}
    for pure in (True, False):
        done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                              text=True, env={**env, native.PURE_ENV: "1"} if pure else env)
        assert done.returncode == 0, done.stderr
        runs[pure] = json.loads(done.stdout)
    assert runs[True] == [False, "Python sources (the model runs from source)", ".py"]
    if compile_model.is_current():
        assert runs[False] == [True, "compiled (mypyc)", ".so"]


def test_loading_a_group_puts_only_a_usable_build_on_the_search_path(tmp_path, monkeypatch):
    """`load` puts the build first on the package's path when `native_dir` finds one, and
    leaves the path alone (saying why) when it does not."""
    from simulations.compiled_group import CompiledGroup
    group = CompiledGroup(str(tmp_path), ("x",), "pkg._native")
    monkeypatch.setattr(CompiledGroup, "native_dir", lambda self: (self.build_dir, "compiled"))
    path = ["/source"]
    assert group.load(path) == (True, "compiled") and path == [group.build_dir, "/source"]
    monkeypatch.setattr(CompiledGroup, "native_dir", lambda self: (None, "stale build"))
    path = ["/source"]
    assert group.load(path) == (False, "stale build") and path == ["/source"]


def test_every_engine_group_is_built_and_removed_with_the_model(tmp_path, monkeypatch):
    """`compile` builds the explorer's and the DES's groups (their modules exist), and
    `--remove` removes the model's build and every group's."""
    from simulations.compiled_group import CompiledGroup
    from simulations.des.native import DES
    from simulations.explore.native import ENGINE
    assert compile_model.GROUPS == (ENGINE, DES)
    assert all(Path(g.package_dir, m + ".py").exists() for g in compile_model.GROUPS
               for m in g.modules)
    fakes = tuple(CompiledGroup(str(tmp_path / name), ("x",), f"{name}._native")
                  for name in ("one", "two"))
    builds = [tmp_path / "model" / native.NATIVE_DIR] + [Path(g.build_dir) for g in fakes]
    for build in builds:
        build.mkdir(parents=True)
    monkeypatch.setattr(compile_model, "BUILD_DIR", builds[0])
    monkeypatch.setattr(compile_model, "GROUPS", fakes)
    assert main(["compile", "--remove"]) == 0
    assert not any(build.exists() for build in builds)


def test_a_build_stamped_for_other_sources_is_not_used(tmp_path):
    (tmp_path / native.DIGEST_FILE).write_text("0" * 64 + "\n")
    for name in ("frontier", "liveness", native.SHARED_LIBRARY):
        (tmp_path / (name + EXTENSION_SUFFIXES[0])).touch()
    found, why = native.usable_build(str(tmp_path), "1" * 64, ["frontier", "liveness"])
    assert found is None and "stale" in why
    assert native.usable_build(str(tmp_path), "0" * 64, ["frontier"])[0] == str(tmp_path)


def _unannotated(path: Path):
    """The functions in a module's source that carry no annotation at all."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            params = a.posonlyargs + a.args + a.kwonlyargs + [p for p in (a.vararg, a.kwarg) if p]
            if node.returns is None and all(p.annotation is None for p in params):
                yield f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"


def test_a_function_without_annotations_is_found(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    module = tmp_path / "m.py"
    module.write_text("def run(self):\n    yield 1\n\n\ndef typed(x: int):\n    pass\n\n\n"
                      "def done() -> None:\n    pass\n")
    assert list(_unannotated(module)) == ["m.py:1 run"]


def test_every_function_of_a_compiled_module_is_annotated():
    """mypy checks nothing in a function without a single annotation, and mypyc then compiles
    every operation in it generically, as slowly as the interpreter (the DES's SimPy generators
    were such, until annotated). Every function of every compiled module is annotated."""
    sources = [ROOT / "model" / (m + ".py") for m in native.compiled_modules(str(ROOT / "model"))]
    sources += [Path(g.package_dir, m + ".py") for g in compile_model.GROUPS for m in g.modules]
    assert len(sources) > 30
    assert [name for path in sources for name in _unannotated(path)] == []
