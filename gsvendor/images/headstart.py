"""A head start for check-images and check-manifests: the longest helm render starts before the
command line is parsed.

A plain ``gsvendor check-images`` spends ~0.08 s on Python's start-up, typer's import and the
configuration before its first render, while the second core idles. :func:`start` runs first in
the console entry point, before the CLI is imported. When the renders are known without parsing
the command line (no chart folders, no ``--helm``, no global option: :func:`plain_invocation`),
the configuration's validation stamp is at hand, the charts are synced, the project lock is free
and no interrupted sync waits to be finished, it takes the project lock and starts the
``defaults`` render of the largest chart: the helm command :func:`gsvendor.images.rendering.render_charts`
runs first. The command takes it over (:meth:`HeadStart.take`) with the configuration and the
lock; :meth:`HeadStart.close` ends what was not taken. In any other case :func:`start` returns
``None`` and the command runs as it does without it, so results never depend on it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from contextlib import ExitStack, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gsvendor.config import Config
    from gsvendor.images.render import Started

COMMANDS = frozenset({"check-images", "check-manifests"})
# options that change neither which charts are rendered nor how: the rest (a chart folder, --helm,
# --config, --cache-dir, --lock-timeout, --help, a typo) leaves the run to the command line's parser
_FLAGS = frozenset({"--json", "-v", "--verbose", "-q", "--quiet", "--images", "--resolve", "--compare-upstream"})
_WITH_VALUE = frozenset({"--junit", "--allow"})


def plain_invocation(args: Sequence[str]) -> bool:
    """Whether ``args`` (``sys.argv[1:]``) run check-images or check-manifests on every configured
    chart with the default helm and configuration: the command first, then only options that do
    not change the renders (``--json``, ``-v``, ``--junit FILE``, ``--allow PREFIX`` …)."""
    if not args or args[0] not in COMMANDS:
        return False
    rest = list(args[1:])
    while rest:
        arg = rest.pop(0)
        name = arg.split("=", 1)[0]
        if arg in _FLAGS or (name in _WITH_VALUE and "=" in arg):
            continue
        if arg in _WITH_VALUE and rest and not rest[0].startswith("-"):
            rest.pop(0)
            continue
        return False
    return True


@dataclass
class HeadStart:
    """A render started before the command line was parsed, with what it was started under.

    ``config``: the configuration (read from its validation stamp); ``helm``: the helm binary;
    ``chart``: the chart folder whose ``defaults`` render runs; ``started``: that render, until
    :meth:`take` hands it over. The project lock is held until :meth:`close`.
    """

    config: Config
    helm: str
    chart: Path
    started: Started | None
    _copy: ExitStack = field(default_factory=ExitStack, repr=False)
    _lock: ExitStack = field(default_factory=ExitStack, repr=False)

    def take(self, chart: Path, helm: str) -> tuple[Started, ExitStack] | None:
        """The running ``defaults`` render of ``chart`` by ``helm`` and the stack holding its
        renderable copy (the caller closes it when the chart's renders are done); ``None`` when the
        head start rendered something else or was taken already."""
        if self.started is None or helm != self.helm or os.path.realpath(chart) != os.path.realpath(self.chart):
            return None
        started, self.started = self.started, None
        copy, self._copy = self._copy, ExitStack()
        return started, copy

    def close(self) -> None:
        """End a render nobody took, remove its copy and release the project lock. Idempotent;
        raises nothing."""
        started, self.started = self.started, None
        if started is not None:
            started.cancel()
        for stack in (self._copy, self._lock):
            with suppress(OSError):
                stack.close()


def start(args: Sequence[str], cwd: Path | None = None) -> HeadStart | None:
    """Start the first render of ``args`` (``sys.argv[1:]``) when that is safe; see the module.

    The cache folder (its validation stamps) and helm are found as the command finds them, from
    the environment; ``cwd``: where the nearest gsvendor.yaml is looked for (default the current
    folder). Returns ``None`` whenever anything is unusual, and never raises for a problem the
    command itself would report (a KeyboardInterrupt while starting still propagates, after the
    partial start is undone).
    """
    if not plain_invocation(args):
        return None
    from gsvendor.errors import GsvendorError

    lock = ExitStack()
    copy = ExitStack()
    try:
        head = _start(lock, copy, cwd)
    except (GsvendorError, OSError, ValueError):
        head = None
    except BaseException:
        copy.close()
        lock.close()
        raise
    if head is None:
        copy.close()
        lock.close()
    return head


def _start(lock: ExitStack, copy: ExitStack, cwd: Path | None) -> HeadStart | None:
    import json

    from gsvendor import config as configuration
    from gsvendor import journal_trust
    from gsvendor.files import default_cache_dir, project_lock
    from gsvendor.images import render
    from gsvendor.signals import Deferred

    path = configuration.find_config(cwd)
    stamps = default_cache_dir() / "validated"
    text = configuration.read_text(path, path.name)
    schema = json.dumps(configuration.CONFIG_SCHEMA, sort_keys=True)
    if configuration.read_stamp(configuration.stamp_path(stamps, schema, text)) is None:
        return None  # validating costs jsonschema's import: the command does it, once
    config = configuration.load_config(None if cwd is None else path, stamps=stamps)
    charts = [config.root / chart.dest for chart in config.charts if chart.render is None]
    if not charts or config.missing_outputs() or not all((c / "Chart.yaml").is_file() for c in charts):
        return None  # the command says what is missing
    lock.enter_context(project_lock(config.lock_path.parent, 0))  # busy: GsvendorError, the command waits
    if os.path.lexists(journal_trust.place(config.root).path) or journal_trust.legacy_note(config.root):
        return None  # the command finishes (or reports) the interrupted sync first
    helm = render.find_helm(None, project_root=config.root)
    chart = max(charts, key=render.chart_size)  # render_charts starts the largest first
    folder = copy.enter_context(render.renderable_copy(chart))
    with Deferred(redeliver=True):  # a Ctrl-C as helm starts comes once its end is registered
        started = render.start_template(helm, folder)
        if isinstance(started, render.Rendered):
            return None
        copy.callback(started.cancel)  # closed before it is handed over: helm ends too (after finish: nothing to do)
    head = HeadStart(config, helm, chart, started)
    head._copy, head._lock = copy, lock
    return head
