"""`python -m simulations readme`: the README's generated blocks are rewritten from their
sources (only the stale ones, nothing else in the file), `--check` names stale blocks without
writing, and bad input is refused before anything is read or written."""
import json
from pathlib import Path

import pytest

from simulations.cli import main
from simulations.verify.claims import block, fill

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
FAST = ("headline", "config-reference", "verification-summary", "conformance", "properties")


@pytest.fixture
def stale_copy(tmp_path):
    """The README with its headline block replaced by an out-of-date sentence (what a
    regenerated sweep with a new manifest digest leaves behind)."""
    path = tmp_path / "README.md"
    path.write_text(fill(README, "headline", "manifest `000000000000`: stale"))
    return path


def test_the_stale_block_is_rewritten_and_nothing_else(stale_copy, capsys):
    stale_copy.chmod(0o644)
    assert main(["readme", "--readme", str(stale_copy), "--block", "headline",
                 "--block", "properties"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["rewrote headline", "current properties"]
    assert stale_copy.read_text() == README
    assert stale_copy.stat().st_mode & 0o777 == 0o644    # the file keeps its permissions


def test_check_names_the_stale_block_and_writes_nothing(stale_copy, capsys):
    before = stale_copy.read_text()
    assert main(["readme", "--readme", str(stale_copy), "--check", "--json",
                 *[a for name in FAST for a in ("--block", name)]]) == 1
    assert json.loads(capsys.readouterr().out) == {
        "headline": "stale", "config-reference": "current", "verification-summary": "current",
        "conformance": "current", "properties": "current"}
    assert stale_copy.read_text() == before
    assert block(before, "headline") == "manifest `000000000000`: stale"


def test_the_committed_readme_is_current(capsys):
    assert main(["readme", "--check", *[a for name in FAST for a in ("--block", name)]]) == 0
    assert capsys.readouterr().out.strip() == "every block is current"


@pytest.mark.parametrize("args, message", [
    (["--block", "headlines"], "--block headlines: no such block (choose from headline, "),
    (["--readme", "nowhere/README.md"], "--readme nowhere/README.md: no such file"),
    (["--readme", "."], "--readme .: is not a file"),
])
def test_bad_input_is_one_line_and_exit_2(args, message, capsys):
    assert main(["readme", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {message}") and len(err.splitlines()) == 1


def test_a_file_without_the_markers_is_refused_unchanged(tmp_path, capsys):
    path = tmp_path / "NOTES.md"
    path.write_text("# notes\n<!-- headline:start -->\nkeep\n")
    assert main(["readme", "--readme", str(path), "--block", "headline"]) == 2
    assert "has no <!-- headline:start --> / <!-- headline:end --> markers" in \
        capsys.readouterr().err
    assert path.read_text() == "# notes\n<!-- headline:start -->\nkeep\n"
