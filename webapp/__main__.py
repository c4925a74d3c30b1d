"""`python -m webapp` is the `furrow` command."""

from webapp.cli import main

main()
