"""A TCP server on loopback for answers no HTTP server library sends (trickled headers or bodies,
resets): each accepted connection is handed to ``serve`` on a thread of its own."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def raw_server(serve: Callable[[socket.socket], None]) -> Iterator[int]:
    """Listen on 127.0.0.1 and yield the port; each connection goes to ``serve(conn)`` (which owns
    and closes it). The listener closes on exit, which ends the accepting thread."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:  # the listener closed
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()
