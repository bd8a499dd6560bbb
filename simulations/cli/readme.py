"""`python -m simulations readme`: rebuild the README's generated blocks from their sources."""
from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from .errors import UsageError


def add_parser(verbs) -> None:
    from ..readme_blocks import BLOCKS, ROOT
    p = verbs.add_parser(
        "readme", help="rewrite the README's generated blocks from committed results",
        description="Regenerate the README's generated blocks (between <!-- NAME:start --> and "
                    "<!-- NAME:end -->) from the property registry, the config file and the "
                    "committed results, and rewrite the ones that changed. Run it after "
                    "regenerating results (make des-results, make verification and make "
                    "conformance do). "
                    f"Blocks: {', '.join(BLOCKS)}.")
    p.add_argument("--block", action="append", metavar="NAME", dest="blocks",
                   help="only this block (repeatable; default: all)")
    p.add_argument("--readme", type=Path, default=ROOT / "README.md", metavar="FILE",
                   help="the file to rewrite (default: the repository's README.md); the "
                        "blocks are always generated from the repository's committed results")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 if any block is stale, naming it")
    p.add_argument("--json", action="store_true", help="print {block: 'stale'|'current'}")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..readme_blocks import BLOCKS, generate, missing_markers, refreshed, stale
    names = args.blocks or list(BLOCKS)
    unknown = [n for n in names if n not in BLOCKS]
    if unknown:
        raise UsageError(f"--block {unknown[0]}: no such block (choose from "
                         f"{', '.join(BLOCKS)})")
    path: Path = args.readme
    if not path.is_file():
        raise UsageError(f"--readme {path}: {'is not a file' if path.exists() else 'no such file'}")
    text = path.read_text()
    absent = missing_markers(text, names)
    if absent:
        raise UsageError(f"{path} has no <!-- {absent[0]}:start --> / <!-- {absent[0]}:end --> "
                         "markers")
    fresh = generate(names)
    changed = stale(text, fresh)
    if args.json:
        print(json.dumps({n: "stale" if n in changed else "current" for n in names}, indent=2))
    if args.check:
        if not args.json:
            print(f"stale: {', '.join(changed)}" if changed else "every block is current")
        return 1 if changed else 0
    if changed:
        new = refreshed(text, {n: fresh[n] for n in changed})
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False,
                                         prefix=f".{path.name}.") as out:
            out.write(new)
        os.chmod(out.name, path.stat().st_mode & 0o7777)   # the temporary file's is 0600
        os.replace(out.name, path)
    if not args.json:
        for name in names:
            print(f"{'rewrote' if name in changed else 'current'} {name}")
    return 0
