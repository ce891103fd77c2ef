"""One module per command: read the configuration's inputs, call the domain packages, return a result
for gsvendor.report to print. The only layer that fetches, builds and writes; never imports gsvendor.cli."""

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

# progress(message) wraps a long step: a spinner in the CLI
Progress = Callable[[str], AbstractContextManager[object]]
no_progress: Progress = nullcontext  # shows nothing
