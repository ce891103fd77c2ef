"""Allow ``python -m gsvendor``; :func:`run` is also the console script's entry point."""

import sys


def run() -> None:
    """Start the CLI. Ctrl-C while it is still starting (importing) exits 130 with one line."""
    try:
        from gsvendor.cli import main
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(130) from None
    main()


if __name__ == "__main__":
    run()
