"""Allow ``python -m gsvendor``; :func:`run` is also the console script's entry point."""

import sys


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run() -> None:
    """Start the CLI. Ctrl-C, SIGTERM or SIGHUP while it is still starting (importing) exits 130
    with one line, no traceback."""
    import signal

    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _interrupt)
    try:
        from gsvendor.cli import main
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(130) from None
    main()


if __name__ == "__main__":
    run()
