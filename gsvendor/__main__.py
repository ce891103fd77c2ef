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
    import gc

    # A run is short and makes few reference cycles, but hundreds of thousands of small objects
    # (YAML nodes, schema trees): at the default threshold (700) the collector runs ~70 times a
    # verify for ~15 ms and finds next to nothing. Every 50,000 net allocations still bounds what
    # cycles can hold (the 100-chart sync peaks at the same RSS).
    gc.set_threshold(50_000)
    try:
        from gsvendor.cli import main
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(130) from None
    main()


if __name__ == "__main__":
    run()
