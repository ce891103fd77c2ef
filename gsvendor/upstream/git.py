"""The git source kind: a shallow, blob-filtered, sparse clone of only the wanted paths."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from gsvendor.errors import SourceError
from gsvendor.upstream.source import UpstreamSnapshot, Wanted


def read_git(url: str, tag: str, wanted: Wanted) -> UpstreamSnapshot:
    """Read the ``wanted`` files of ``tag`` from a git repository at ``url`` with gitpython.

    The clone is shallow (depth 1), blob-filtered and sparse, so only the wanted paths are
    fetched. Raises :class:`SourceError` when the URL or tag cannot be reached.
    """
    import git

    env = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}
    with tempfile.TemporaryDirectory(prefix="gsvendor-git-") as tmp:
        try:
            repo = git.Repo.clone_from(
                url,
                tmp,
                env=env,
                multi_options=["--depth=1", f"--branch={tag}", "--filter=blob:none", "--no-checkout", "--sparse"],
            )
            repo.git.sparse_checkout("set", "--no-cone", *wanted.sparse_patterns(), env=env)
            repo.git.checkout("HEAD", env=env)
            commit = repo.head.commit.hexsha
        except git.GitCommandError as exc:
            stderr = " ".join((exc.stderr or "").split())
            stderr = re.sub(r"^stderr: ", "", stderr).strip("' ")
            if re.search(r"Remote branch .* not found|not found in upstream", stderr):
                raise SourceError(f"{url}: unknown tag {tag}") from None
            raise SourceError(f"{url}: git clone failed: {stderr or exc}") from None
        root = Path(tmp)
        files: dict[str, bytes] = {}
        for path in sorted(root.rglob("*")):
            rel = path.relative_to(root).as_posix()
            if rel.startswith(".git/") or rel == ".git" or not wanted.matches(rel):
                continue
            if path.is_symlink():
                real = path.resolve()
                if root.resolve() not in real.parents:
                    raise SourceError(f"{url}: refusing link leading outside the repository: {rel}")
            if path.is_file():
                files[rel] = path.read_bytes()
    return UpstreamSnapshot(tag=tag, kind="git", location=url, files=files, commit=commit)
