"""The git source kind: a shallow, blob-filtered, sparse clone of only the wanted paths; git's process
group is killed past the fetch's time budget, or with gsvendor (even SIGKILLed) by a reaper process
(:data:`_REAPER`) that also removes the clone (its ``.git/config`` holds the URL)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gsvendor import gitcmd
from gsvendor.errors import SourceError, redact, shorten
from gsvendor.upstream import source


def public_git_url(url: str) -> str:
    """:func:`~gsvendor.upstream.source.public_url` of ``url`` keeping an ``ssh://`` URL's user name
    (``ssh://git@host/…`` names an account, not a secret; the scp form ``git@host:path`` keeps it too)."""
    parts = source.split_userinfo(url)
    shown = source.public_url(url)
    user = parts[1].split(":", 1)[0] if parts is not None and parts[0].lower() == "ssh://" else ""
    return f"{shown[:6]}{user}@{shown[6:]}" if user else shown


# Reads JSON lines (["+"/"-", pgid] a git run began/ended, ["rm", path] a clone); when its input
# ends without ["done"] (gsvendor died, even SIGKILLed), kills the groups left and removes the clones.
_REAPER = """
import contextlib, json, os, shutil, signal, sys
groups, folders = set(), []
for line in sys.stdin:
    word, value = json.loads(line)
    if word == "done":
        sys.exit(0)
    {"+": groups.add, "-": groups.discard, "rm": folders.append}[word](value)
for group in groups:
    with contextlib.suppress(OSError):
        os.killpg(group, signal.SIGKILL)
for folder in folders:
    shutil.rmtree(folder, ignore_errors=True)
"""


_OFFLINE = re.compile(r"Could not resolve host|Failed to connect|Connection refused|Network is unreachable")


class _Reaper:
    """The :data:`_REAPER` process of one git source read (none where it cannot start), and its deadline."""

    def __init__(self, url: str, options: source.FetchOptions) -> None:
        self.url, self.shown, self.options = url, public_git_url(url), options
        self.deadline = time.monotonic() + options.max_time
        try:
            self.process: subprocess.Popen[bytes] | None = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _REAPER],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # a Ctrl-C at the terminal is for gsvendor, which cleans up itself
            )
        except OSError:
            self.process = None

    def tell(self, word: str, value: object) -> None:
        """Send one line (``+``/``-`` a process group, ``rm`` a folder, ``done``)."""
        if self.process is None or self.process.stdin is None:
            return
        try:
            self.process.stdin.write(json.dumps([word, value]).encode() + b"\n")
            self.process.stdin.flush()
        except OSError:  # it died: nothing more to tell it
            self.process = None

    def close(self) -> None:
        """Tell it gsvendor cleaned up itself, and wait for it to end."""
        process = self.process
        self.tell("done", None)
        if process is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()  # type: ignore[union-attr]
            process.wait()

    def git(self, *args: str, cwd: str | None = None) -> str:
        """git's stdout for ``args`` in the time left; :class:`SourceError` on failure or timeout."""
        rate, window = max(1, int(self.options.min_rate)), max(1, int(self.options.timeout))
        config = ["-c", f"http.lowSpeedLimit={rate}", "-c", f"http.lowSpeedTime={window}", "-c", "protocol.version=2"]
        try:
            done = gitcmd.run([*config, *args], cwd, timeout=self.deadline - time.monotonic(), track=self.tell)
        except gitcmd.GitTimeout:
            raise SourceError(
                f"{self.shown}: git {args[0]} took longer than {self.options.max_time:g} s (--max-time); stopped it"
            ) from None
        if done.returncode != 0:
            # git's progress line ("Cloning into '/tmp/…'...") names a temporary folder: not the failure
            said = [line for line in gitcmd.readable(done.stderr).splitlines() if not line.startswith("Cloning into ")]
            text = " ".join(" ".join(said).split())
            if re.search(r"Remote branch .* not found|not found in upstream", text):
                raise _UnknownTag(f"{self.shown}: unknown tag")
            hint = " (no network here? read a local copy with --source)" if _OFFLINE.search(text) else ""
            failed = shorten(redact(text), 400) or done.returncode
            raise SourceError(f"{self.shown}: git {args[0]} failed: {failed}{hint}")
        return gitcmd.readable(done.stdout)

    def unknown_tag(self, tag: str) -> SourceError:
        """The error for a repository without ``tag``: what it holds (tags near it, HEAD) from ls-remote."""
        try:
            listed = self.git("ls-remote", "--", self.url, "HEAD", "refs/tags/*").splitlines()
        except SourceError:  # what it holds is a hint: the unknown tag is the error
            return SourceError(f"{self.shown}: unknown tag {tag}")
        tags = [line.split("refs/tags/", 1)[1].removesuffix("^{}") for line in listed if "\trefs/tags/" in line]
        head = next((line.split()[0] for line in listed if line.endswith("\tHEAD")), None)
        return source.missing_tag(self.shown, tag, tags, head, "unknown tag")


class _UnknownTag(SourceError):
    """git answered that the remote has no such branch or tag."""


_TEMP_PREFIX = "gsvendor-git-"


def _remove_orphaned_clones() -> None:
    """Remove the temporary clones (holding the URL) of a gsvendor that no longer runs."""
    try:
        entries = list(os.scandir(tempfile.gettempdir()))
    except OSError:
        return
    for entry in entries:
        match = re.fullmatch(rf"{_TEMP_PREFIX}(\d+)-[A-Za-z0-9_]+", entry.name)
        if not match or not entry.is_dir(follow_symlinks=False):
            continue
        with contextlib.suppress(OSError):  # a clone gone meanwhile, another user's process
            try:
                if entry.stat(follow_symlinks=False).st_uid == os.getuid():
                    os.kill(int(match.group(1)), 0)  # raises when its gsvendor no longer runs
            except (ProcessLookupError, OverflowError):
                shutil.rmtree(entry.path, ignore_errors=True)


def remote_tags(url: str, options: source.FetchOptions) -> list[str]:
    """The tag names of the git repository at ``url`` (``git ls-remote --tags --refs``), in git's order.
    Raises :class:`SourceError` naming the URL without credentials."""
    with contextlib.closing(_Reaper(url, options)) as reaper:
        listed = reaper.git("ls-remote", "--tags", "--refs", "--", url)
    return [line.rsplit("refs/tags/", 1)[-1] for line in listed.splitlines() if "\trefs/tags/" in line]


def read_git(url: str, tag: str, wanted: source.Wanted, options: source.FetchOptions) -> source.UpstreamSnapshot:
    """Read the ``wanted`` files of ``tag`` from the git repository at ``url`` (:func:`read_tree`'s bounds, ``options``'
    time and rate; location :func:`public_git_url`). :class:`SourceError` when unreachable or out of time."""
    _remove_orphaned_clones()
    with (
        contextlib.closing(_Reaper(url, options)) as reaper,
        tempfile.TemporaryDirectory(prefix=f"{_TEMP_PREFIX}{os.getpid()}-") as tmp,
    ):
        reaper.tell("rm", tmp)
        clone = ["clone", "--depth=1", f"--branch={tag}", "--filter=blob:none", "--no-checkout", "--sparse"]
        try:
            reaper.git(*clone, "--", url, tmp)
        except _UnknownTag:
            raise reaper.unknown_tag(tag) from None
        # non-cone patterns (gitignore syntax) selecting exactly the wanted paths
        patterns = [f"/{f.rstrip('/')}/" for f in wanted.folders] + [f"/{f}" for f in wanted.files]
        reaper.git("sparse-checkout", "set", "--no-cone", *patterns, cwd=tmp)
        reaper.git("checkout", "HEAD", cwd=tmp)
        commit = reaper.git("rev-parse", "HEAD", cwd=tmp).strip()
        files = source.read_tree(Path(tmp), wanted, reaper.shown, "repository")
        # -z: names as they are; git quotes a name with non-ASCII bytes ("p\303\244ckage") otherwise
        folders = frozenset(reaper.git("ls-tree", "-z", "-d", "--name-only", "HEAD", cwd=tmp).split("\0")) - {""}
    return source.UpstreamSnapshot(
        tag=tag, kind="git", location=reaper.shown, files=files, commit=commit, folders=folders
    )
