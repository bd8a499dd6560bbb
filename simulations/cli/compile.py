"""`python -m simulations compile`: build (or remove) the compiled model."""
from __future__ import annotations

import sys

from .. import compile_model


def add_parser(verbs) -> None:
    parser = verbs.add_parser(
        "compile", help="compile model/ with mypyc (optional; results are the same)",
        description="Compile the model's modules with mypyc into model/_native/. The model "
                    "loads them only while they match its sources (else it runs from source, "
                    "so a stale or missing build costs speed, never correctness); "
                    "MCP_MODEL_PURE=1 forces the sources. Without a C compiler or mypyc this "
                    "says why and exits 0, unless --require.")
    parser.add_argument("--force", action="store_true", help="rebuild even if up to date")
    parser.add_argument("--remove", action="store_true",
                        help="delete the compiled build (the sources are used afterwards)")
    parser.add_argument("--no-profile", action="store_true",
                        help="build once, without the profile-guided second build (which "
                             "GCC 11 or later makes after a training run on an instrumented "
                             "build)")
    parser.add_argument("--require", action="store_true",
                        help="exit 1 when the model could not be compiled")
    parser.set_defaults(handler=run)


def run(args) -> int:
    outcome = compile_model.remove() if args.remove else \
        compile_model.build(force=args.force, profile=not args.no_profile)
    print(outcome.message, file=sys.stdout if outcome.compiled or args.remove else sys.stderr)
    return 1 if args.require and not outcome.compiled and not args.remove else 0
