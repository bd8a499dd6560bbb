"""`python -m simulations <verb>`: the project's one command line."""
from .cli import main

raise SystemExit(main())
