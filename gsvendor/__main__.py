"""Allow ``python -m gsvendor``; :func:`run` is also the console script's entry point."""

import sys


def run() -> None:
    """Start the CLI. Ctrl-C, SIGTERM or SIGHUP while it is still importing exits 130 with one line, no
    traceback; a signal ignored at the start stays ignored (``nohup``)."""
    import gc

    # hundreds of thousands of small objects (YAML nodes, schema trees) and few cycles: at the default
    # threshold (700) the collector runs ~70 times a verify and finds next to nothing
    gc.set_threshold(50_000)
    try:
        from gsvendor.signals import ignore, interrupt_on_termination

        interrupt_on_termination()
        from gsvendor.cli import main

        main()
    except KeyboardInterrupt:  # while importing, or before main() handles it itself: nothing was written yet
        import os

        sys.stderr.write("interrupted\n")
        sys.stderr.flush()
        os._exit(130)  # not SystemExit: one inside an import leaves CPython's flag that exits by SIGINT (-2)
    except SystemExit as stop:
        ignore()  # the exit code is decided: a signal during the exit (atexit, flush) must not replace it
        _exit_now(stop.code)
        raise


def _exit_now(code: object) -> None:
    """End the process with ``code`` (an int or ``None``) at once after the atexit handlers and a flush of the
    standard streams, skipping the interpreter's teardown (11-19 % of a command's CPU time). Returns, leaving
    the exit to Python, while another non-daemon thread runs, for a message, or when a flush fails."""
    import atexit
    import os
    import threading

    run_exitfuncs = getattr(atexit, "_run_exitfuncs", None)  # CPython's; elsewhere the normal exit
    others = any(t is not threading.main_thread() and t.is_alive() and not t.daemon for t in threading.enumerate())
    if run_exitfuncs is None or not (code is None or isinstance(code, int)) or others:
        return
    run_exitfuncs()
    try:
        for stream in filter(None, (sys.stdout, sys.stderr)):
            stream.flush()
    except Exception:  # OSError, ValueError (closed), OutputError (the CLI's streams): Python's exit reports it
        return
    os._exit(code or 0)


if __name__ == "__main__":
    run()
