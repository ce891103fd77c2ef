"""The head start of check-images and check-manifests (gsvendor/images/headstart.py):
when it applies, that the command takes its render over, and that nothing of it outlives the run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from contextlib import suppress
from pathlib import Path

import pytest
from conftest import ROOT, Cli, default_signals, tarball

from gsvendor.files import project_lock
from gsvendor.images import headstart
from gsvendor.images.rendering import render_charts
from gsvendor.images.variants import chart_targets, images_config

TAG = "v0.20.0"


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory, cache: Path) -> Path:
    """This repository's configuration and overlays synced at v0.20.0; the sync leaves the
    configuration's validation stamp in ``cache``."""
    folder = tmp_path_factory.mktemp("headstart") / "project"
    folder.mkdir()
    shutil.copy(ROOT / "gsvendor.yaml", folder / "gsvendor.yaml")
    shutil.copytree(ROOT / "overlays", folder / "overlays")
    shutil.copytree(ROOT / "hack", folder / "hack")
    result = Cli(cache)(folder, "sync", TAG, "--source", str(tarball(TAG)))
    assert result.returncode == 0, result.stderr
    return folder


@pytest.fixture
def logging_helm(tmp_path: Path, helm: str) -> tuple[Path, Path]:
    """A helm that appends its chart folder's name and its arguments after it to a log, then runs helm."""
    log, shim = tmp_path / "helm.log", tmp_path / "helm"
    shim.write_text(f'#!/bin/bash\necho "$(basename "$3") ${{*:4}}" >> {log}\nexec {helm} "$@"\n')
    shim.chmod(0o755)
    return shim, log


def _environ(cache: Path, helm: Path | str) -> dict[str, str]:
    return {**os.environ, "GSVENDOR_CACHE_DIR": str(cache), "GSVENDOR_HELM": str(helm), "NO_COLOR": "1"}


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch):
    """Sets this process's cache folder and helm as the command line would find them."""

    def set_env(cache: Path, helm: Path | str) -> None:
        monkeypatch.setenv("GSVENDOR_CACHE_DIR", str(cache))
        monkeypatch.setenv("GSVENDOR_HELM", str(helm))

    return set_env


@pytest.mark.parametrize(
    ("args", "plain"),
    [
        (["check-images"], True),
        (["check-manifests"], True),
        (["check-images", "--json", "-v", "--junit", "out.xml", "--allow", "x/", "--allow=y/"], True),
        (["check-manifests", "--images", "--junit=out.xml", "-q"], True),
        (["check-images", "--resolve", "--compare-upstream"], True),
        ([], False),
        (["verify"], False),
        (["-q", "check-images"], False),  # a global option first: the command line's parser decides
        (["check-images", "helm/kserve-crd"], False),  # chart folders
        (["check-images", "--helm", "/usr/bin/helm"], False),
        (["check-images", "--config", "other.yaml"], False),
        (["check-images", "--cache-dir", "c"], False),
        (["check-images", "--lock-timeout", "0"], False),
        (["check-images", "--help"], False),
        (["check-images", "--junit"], False),  # no value: a usage error
        (["check-images", "--junit", "--json"], False),
        (["check-images", "--jsn"], False),
    ],
)
def test_only_a_plain_invocation_gets_a_head_start(args: list[str], plain: bool) -> None:
    assert headstart.plain_invocation(args) is plain


def test_the_largest_charts_defaults_render_runs_and_close_leaves_nothing(
    synced: Path, cache: Path, helm: str, env
) -> None:
    head = _start(env, cache, helm, synced)
    assert head is not None
    try:
        started = head.started
        assert started is not None
        assert head.chart == synced / "helm" / "kserve-llmisvc-crd"  # 4.4 MB of CRDs: the longest render
        assert started.args == [helm, "template", "release", str(started.copy), "--namespace", "default"]
        assert (started.copy / "Chart.yaml").is_file()
        with pytest.raises(Exception, match="another gsvendor"):  # it holds the project lock
            with project_lock(synced, 0):
                pass
    finally:
        head.close()
    assert started.process.returncode is not None  # ended and reaped
    assert not started.copy.parent.exists()  # the renderable copy is gone
    with project_lock(synced, 0):  # and the lock is free
        pass
    head.close()  # idempotent


def test_render_charts_takes_the_started_render_over(
    synced: Path, cache: Path, logging_helm: tuple[Path, Path], env
) -> None:
    shim, log = logging_helm
    head = _start(env, cache, shim, synced)
    assert head is not None
    try:
        charts = chart_targets([], head.config)
        rendering = render_charts(charts, images_config(head.config), str(shim), head_start=head)
        assert head.started is None  # taken
    finally:
        head.close()
    calls = log.read_text().splitlines()
    # one helm per variant: the head start's render was not run a second time
    assert len(calls) == len(rendering.variants) == 10
    assert calls.count("kserve-llmisvc-crd --namespace default") == 1
    crd = next(r for r in rendering.variants if r.chart.name == "kserve-llmisvc-crd")
    assert crd.rendered and crd.manifests.count("kind: CustomResourceDefinition") == 3


def test_a_head_start_for_another_chart_or_helm_is_not_taken(synced: Path, cache: Path, helm: str, env) -> None:
    head = _start(env, cache, helm, synced)
    assert head is not None
    try:
        assert head.take(synced / "helm" / "kserve-crd", helm) is None
        assert head.take(head.chart, "/usr/local/bin/other-helm") is None
        taken = head.take(head.chart, helm)
        assert taken is not None
        started, copy = taken
        assert head.take(head.chart, helm) is None  # once
        with copy:
            assert started.finish().ok
    finally:
        head.close()


def test_no_head_start_without_a_stamp_with_the_lock_busy_or_a_sync_to_finish(
    synced: Path, cache: Path, helm: str, tmp_path: Path, env
) -> None:
    # a cache without the configuration's stamp: validating would cost jsonschema's import
    assert _start(env, tmp_path / "empty-cache", helm, synced) is None
    with project_lock(synced, 0):  # another gsvendor works here: the command waits, saying so
        assert _start(env, cache, helm, synced) is None
    from gsvendor import journal_trust

    for journal in (journal_trust.place(synced, cache).path, synced / journal_trust.LEGACY_NAME):
        journal.parent.mkdir(parents=True, exist_ok=True)
        journal.write_text("{}")
        try:  # the command finishes (or reports) the interrupted sync first
            assert _start(env, cache, helm, synced) is None
        finally:
            journal.unlink()
    assert _start(env, cache, tmp_path / "no-helm", synced) is None
    assert _start(env, cache, helm, tmp_path) is None  # no gsvendor.yaml
    with project_lock(synced, 0):  # nothing was left holding the lock by the refusals
        pass


def test_no_head_start_before_the_charts_are_synced(tmp_path: Path, cache: Path, helm: str, synced: Path, env) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    shutil.copy(synced / "gsvendor.yaml", folder / "gsvendor.yaml")  # its stamp is in cache
    assert _start(env, cache, helm, folder) is None


def _start(env, cache: Path, helm: Path | str, cwd: Path) -> headstart.HeadStart | None:
    env(cache, helm)
    return headstart.start(["check-images"], cwd)


def _run(cwd: Path, environ: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gsvendor", *args],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=default_signals,
    )


def _check_images_after(setup: str, cwd: Path, environ: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``gsvendor check-images`` run by the console entry point in a Python that first runs ``setup``
    (a script that patches where a signal is to arrive)."""
    script = setup + "from gsvendor.__main__ import run\nsys.argv = ['gsvendor', 'check-images']\nrun()\n"
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        check=False,
        timeout=20,
        preexec_fn=default_signals,
    )


def _sleeping_helm(tmp_path: Path) -> tuple[Path, Path, Path]:
    """``(scratch, pids, shim)``: an empty TMPDIR for the run, the file each helm appends its pid
    to, and a helm that does that and then sleeps 30 s (a render still running when a signal comes)."""
    scratch, pids, shim = tmp_path / "tmp", tmp_path / "helm.pids", tmp_path / "helm"
    scratch.mkdir()
    shim.write_text(f"#!/bin/sh\necho $$ >> {pids}\nexec sleep 30\n")
    shim.chmod(0o755)
    pids.write_text("")
    return scratch, pids, shim


def _nothing_left(scratch: Path, pids: Path, project: Path) -> None:
    """No renderable copy in the run's ``scratch`` TMPDIR, no helm of those ``pids`` (one per line)
    still running, and the project lock free."""
    assert list(scratch.iterdir()) == []
    for pid in map(int, pids.read_text().split()):
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    with project_lock(project, 0):
        pass


def _without_times(value: object) -> object:
    if isinstance(value, dict):
        return {k: _without_times(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [_without_times(v) for v in value]
    return value


@pytest.mark.parametrize("command", ["check-images", "check-manifests"])
def test_the_same_result_with_and_without_a_head_start(
    synced: Path, cache: Path, logging_helm: tuple[Path, Path], command: str
) -> None:
    shim, log = logging_helm
    environ = _environ(cache, shim)
    headed = _run(synced, environ, command, "--json")
    headed_calls = log.read_text().splitlines()
    log.write_text("")
    plain = _run(synced, environ, "-q", command, "--json")  # a global option first: no head start
    assert (headed.returncode, headed.stderr) == (plain.returncode, plain.stderr) == (0, "")
    assert _without_times(json.loads(headed.stdout)) == _without_times(json.loads(plain.stdout))
    assert sorted(headed_calls) == sorted(log.read_text().splitlines())  # the same helm commands, once each


def test_a_failing_run_leaves_no_render_copy_and_no_helm(synced: Path, cache: Path, helm: str, tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    environ = {**_environ(cache, helm), "TMPDIR": str(scratch)}
    (tmp_path / "a-file").write_text("")  # no folder can be made there: the JUnit report fails, exit 2
    result = _run(synced, environ, "check-images", "--junit", str(tmp_path / "a-file" / "x.xml"))
    assert result.returncode == 2, result.stderr
    assert "--junit" in result.stderr and "Traceback" not in result.stderr
    assert list(scratch.iterdir()) == []
    with project_lock(synced, 0):
        pass


def test_an_interrupt_before_the_command_takes_it_ends_the_render(synced: Path, cache: Path, tmp_path: Path) -> None:
    """Ctrl-C in the command before render_charts took the head start (typer's import, the
    configuration) exits at once (os._exit, skipping every finally): the render and its copy must
    not go on (a stray helm, a gsvendor-render-* folder in $TMPDIR)."""
    scratch, pid_file, shim = _sleeping_helm(tmp_path)
    script = (
        "import os, signal, sys, time\n"
        "from gsvendor.workflows import check_images\n"
        "real = check_images.render_inputs\n"
        "def interrupted(*args, **kwargs):\n"
        f"    while not os.path.getsize({str(pid_file)!r}): time.sleep(0.01)  # the head start's helm runs\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    return real(*args, **kwargs)\n"
        "check_images.render_inputs = interrupted\n"
    )
    result = _check_images_after(script, synced, {**_environ(cache, shim), "TMPDIR": str(scratch)})
    assert (result.returncode, result.stderr) == (130, "interrupted; nothing was left half-written\n")
    _nothing_left(scratch, pid_file, synced)


def test_ctrl_c_while_rendering_runs_no_render_not_yet_started(synced: Path, cache: Path, tmp_path: Path) -> None:
    """Ctrl-C with renders queued: the two running ones end, the eight queued never start (the
    executor's exit used to run every queued helm first, 1-2 s)."""
    import signal
    import time

    log, shim = tmp_path / "helm.log", tmp_path / "helm"
    shim.write_text(f'#!/bin/sh\necho "$3" >> {log}\nsleep 1\nexec {_real_helm()} "$@"\n')
    shim.chmod(0o755)
    log.write_text("")
    environ = _environ(cache, shim)
    # -q first: no head start, so the pool's two workers start the first two renders
    process = subprocess.Popen(
        [sys.executable, "-m", "gsvendor", "-q", "check-images"],
        cwd=synced,
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_signals,
    )
    deadline = time.monotonic() + 60
    while len(log.read_text().splitlines()) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (130, "interrupted; nothing was left half-written\n")
    assert len(log.read_text().splitlines()) == 2


def _real_helm() -> str:
    from gsvendor.images.render import find_helm

    return find_helm(project_root=ROOT)


@pytest.mark.parametrize(
    ("user", "seen"),
    [
        ({}, "off 256MiB"),  # render.HELM_GC: the collector off, under a soft limit
        ({"GOGC": "50"}, "50 -"),  # the user's settings win, either one
        ({"GOMEMLIMIT": "1GiB"}, "- 1GiB"),
    ],
)
def test_helm_runs_with_gos_collector_off_unless_the_user_set_it(
    synced: Path, cache: Path, helm: str, tmp_path: Path, user: dict[str, str], seen: str
) -> None:
    log, shim = tmp_path / "helm.log", tmp_path / "helm"
    shim.write_text(f'#!/bin/bash\necho "${{GOGC:--}} ${{GOMEMLIMIT:--}}" >> {log}\nexec {helm} "$@"\n')
    shim.chmod(0o755)
    environ = {k: v for k, v in _environ(cache, shim).items() if k not in ("GOGC", "GOMEMLIMIT")}
    for args in (["check-images"], ["-q", "check-images"]):  # with the head start and without
        log.write_text("")
        result = _run(synced, {**environ, **user}, *args)
        assert result.returncode == 0, result.stderr
        assert log.read_text().splitlines() == [seen] * 10  # every render of v0.20.0's charts


def test_a_signal_as_the_head_starts_helm_starts_ends_that_helm(synced: Path, cache: Path, tmp_path: Path) -> None:
    """SIGTERM arriving while the head start's helm is being started (between the fork and the
    render's registration for cleanup) left that helm running after gsvendor had exited: its start
    is now registered before a signal is acted on."""
    scratch, pids, shim = _sleeping_helm(tmp_path)
    script = (
        "import os, signal, subprocess, sys\n"
        "real = subprocess.Popen.__init__\n"
        "def started(self, *args, **kwargs):\n"
        "    real(self, *args, **kwargs)\n"
        "    os.kill(os.getpid(), signal.SIGTERM)  # as helm has just been started\n"
        "subprocess.Popen.__init__ = started\n"
    )
    result = _check_images_after(script, synced, {**_environ(cache, shim), "TMPDIR": str(scratch)})
    assert (result.returncode, result.stderr) == (130, "interrupted\n")
    _nothing_left(scratch, pids, synced)


def test_a_second_signal_while_the_renders_are_cleaned_up_leaves_no_copy(
    synced: Path, cache: Path, tmp_path: Path
) -> None:
    """SIGTERM, then another as the renderable copies were being removed: the second cut the removal
    short and a copy of the chart stayed in TMPDIR."""
    scratch, pids, shim = _sleeping_helm(tmp_path)
    script = (
        "import os, signal, sys, tempfile\n"
        "from gsvendor.images import rendering\n"
        "real = rendering.load_values\n"
        "def loading(*args, **kwargs):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)  # while the defaults render\n"
        "    return real(*args, **kwargs)\n"
        "rendering.load_values = loading\n"
        "remove = tempfile.TemporaryDirectory._rmtree\n"
        "def removing(cls, *args, **kwargs):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)  # and another as each copy is removed\n"
        "    return remove(*args, **kwargs)\n"
        "tempfile.TemporaryDirectory._rmtree = classmethod(removing)\n"
    )
    result = _check_images_after(script, synced, {**_environ(cache, shim), "TMPDIR": str(scratch)})
    assert result.returncode == 130, result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1, result.stderr
    _nothing_left(scratch, pids, synced)


@pytest.mark.parametrize("args", [["check-images"], ["-q", "check-manifests"]])  # with a head start, without
def test_sigterm_while_rendering_ends_the_running_helms_at_once(
    synced: Path, cache: Path, tmp_path: Path, args: list[str]
) -> None:
    """SIGTERM to gsvendor alone (a CI job's timeout, kill) while helm renders: the run waited for
    every running helm to finish (up to its 120 s timeout) before exiting."""
    import signal
    import time

    scratch, pids, shim = _sleeping_helm(tmp_path)
    environ = {**_environ(cache, shim), "TMPDIR": str(scratch)}
    process = subprocess.Popen(
        [sys.executable, "-m", "gsvendor", *args],
        cwd=synced,
        env=environ,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_signals,
    )
    try:
        deadline = time.monotonic() + 30
        while len(pids.read_text().split()) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.1)
        process.send_signal(signal.SIGTERM)
        # each helm sleeps 30 s: an exit within 15 s did not wait for them to finish
        _, err = process.communicate(timeout=15)
    finally:
        process.kill()
        for pid in map(int, pids.read_text().split()):
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert (process.returncode, err) == (130, "interrupted; nothing was left half-written\n")
    assert list(scratch.iterdir()) == []


@pytest.mark.parametrize(
    "limit",
    [
        *("bogus", "", "off", "256MiB", "1KB", "-0", "-1", " 5", "5B", "1iB", "5b", "\uff15"),
        *(str(2**63 - 1), str(2**63), "8388607TiB", "8388608TiB"),
        # Go's atoi64 reads a lone "-" as 0: "-KiB" is a limit of 0
        *("-KiB", "-TiB", "-B", "-", "KiB", "-iB", "--1KiB"),
    ],
)
def test_gomemlimit_is_judged_as_go_judges_it(helm: str, limit: str) -> None:
    from gsvendor.images.render import _go_memory_limit

    started = subprocess.run([helm, "version"], env={**os.environ, "GOMEMLIMIT": limit}, capture_output=True)
    assert _go_memory_limit(limit) is (started.returncode == 0), started.stderr[-300:]


@pytest.mark.parametrize("args", [["check-images"], ["-q", "check-manifests"]])
def test_a_gomemlimit_go_rejects_is_one_line_not_a_failed_render_per_variant(
    synced: Path, cache: Path, helm: str, args: list[str]
) -> None:
    """GOMEMLIMIT=bogus: every helm died at start with a Go runtime stack, reported as ten variant
    problems, exit 1 (the check failed)."""
    result = _run(synced, {**_environ(cache, helm), "GOMEMLIMIT": "bogus"}, *args)
    assert (result.returncode, result.stderr.splitlines()[-1:]) == (
        2,
        [
            "error: GOMEMLIMIT='bogus': not a memory limit Go accepts (bytes with an optional B, KiB, MiB, GiB or "
            "TiB suffix, or off), so helm cannot start: fix or unset it"
        ],
    )
    assert "runtime" not in result.stdout + result.stderr


def test_an_empty_gogc_is_unset_as_go_reads_it() -> None:
    from gsvendor.images.render import HELM_GC, helm_environment

    assert helm_environment({"GOGC": "", "GOMEMLIMIT": ""}) == HELM_GC
    assert helm_environment({"GOGC": "100"}) is None


def test_helm_inherits_an_ignored_sigint(synced: Path, cache: Path, helm: str, tmp_path: Path) -> None:
    """Started with SIGINT ignored (nohup, a background job of a script), gsvendor ignores it and so
    must every helm: the head start's helm, started while signals were deferred to a handler, had
    SIGINT reset to the default on exec and died of a Ctrl-C to the process group."""
    import signal

    log, shim = tmp_path / "helm.log", tmp_path / "helm"
    shim.write_text(f'#!/bin/sh\ngrep SigIgn /proc/$$/status >> {log}\nexec {helm} "$@"\n')
    shim.chmod(0o755)
    log.write_text("")
    result = subprocess.run(
        [sys.executable, "-m", "gsvendor", "check-images"],
        cwd=synced,
        env=_environ(cache, shim),
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    assert result.returncode == 0, result.stderr
    masks = [int(line.split()[1], 16) for line in log.read_text().splitlines()]
    assert len(masks) == 10 and all(mask & (1 << (signal.SIGINT - 1)) for mask in masks), masks
