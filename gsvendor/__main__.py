"""Allow ``python -m gsvendor``."""

from gsvendor.cli import main

main()
