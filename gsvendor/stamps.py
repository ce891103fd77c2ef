"""Validation stamps: a cache of what reading a user file found, keyed by what the verdict depends on.
A stamp is a small JSON file named by the sha256 of the stamp version, a salt (a schema's JSON, or a
name) and the text read, holding the text's data (``{"data": …}``) when JSON gives it back exactly, else ``{}``,
after a line with the sha256 of that JSON: a stamp damaged or edited since is not read (the text is parsed again)."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from gsvendor.files import write_whole

MAX_STAMP_BYTES = 16 * 1024 * 1024  # a stamp larger than a user file may be is damage, not data
STAMP_VERSION = "stamp-v3"  # the key prefix and format of stamps; older stamps are not read


def stamp_path(stamps: Path | None, salt: str, text: str) -> Path | None:
    """The stamp of ``text`` read as ``salt`` says, in the folder ``stamps``; ``None`` without a folder."""
    if stamps is None:
        return None
    key = f"{STAMP_VERSION}\0{salt}\0{text}".encode("utf-8", "surrogatepass")
    return stamps / hashlib.sha256(key).hexdigest()


def read_stamp(stamp: Path | None) -> dict[str, Any] | None:
    """The JSON object a stamp holds (``{"data": {…}}``, or ``{}``); ``None`` when there is no stamp or
    it cannot be read, is not such an object or is larger than :data:`MAX_STAMP_BYTES`."""
    try:
        if stamp is None or not stamp.is_file():
            return None
        with stamp.open("rb") as handle:
            digest, _, raw = handle.read(MAX_STAMP_BYTES + 1).partition(b"\n")
        held = json.loads(raw) if hashlib.sha256(raw).hexdigest().encode() == digest else None  # a cut one too
    except (OSError, ValueError, RecursionError):
        return None
    # every stamped document (gsvendor.yaml, an overlay, the lock) is a mapping: other data is damage
    mapping = isinstance(held, dict) and len(held) < 2 and (not held or isinstance(held.get("data"), dict))
    return held if mapping else None


def framed(held: str) -> str:
    """A stamp file's text for the JSON text ``held``: its sha256 (hex), a line break, then ``held``."""
    return f"{hashlib.sha256(held.encode()).hexdigest()}\n{held}"


def write_stamp(stamp: Path | None, data: Any) -> None:
    """Write ``stamp`` holding ``data`` when JSON gives it back exactly (else an empty object), atomically and
    never through a link at the partial file's name; errors are ignored (a full cache costs the next run a parse)."""
    if stamp is None:
        return
    try:  # exact: the same types, values and key order come back (no date, tuple, infinity, NaN or int key)
        text = json.dumps(data, separators=(",", ":"), allow_nan=False)
        held = f'{{"data":{text}}}' if json.loads(text) == data else "{}"
    except (TypeError, ValueError, RecursionError):
        held = "{}"
    with contextlib.suppress(OSError):  # a folder (or what else a rename cannot replace) in the stamp's place
        write_whole(stamp, framed(held).encode())


@functools.cache
def code_version() -> str:
    """The sha256 of the code whose results stamps keep (generated files, CRD field answers): every gsvendor
    module's source, Python's and ruamel.yaml's versions (the YAML emulations read libyaml's events)."""
    import ruamel.yaml

    from gsvendor import __version__

    package = Path(__file__).resolve().parent
    # the version too: an install of byte code alone (no .py) still keys on the release
    digest = hashlib.sha256(f"{sys.version}\0gsvendor {__version__}".encode())
    for path in sorted(package.rglob("*.py")):
        digest.update(f"\0{path.relative_to(package).as_posix()}\0".encode())
        digest.update(path.read_bytes())
    try:
        from _ruamel_yaml import get_version_string

        libyaml = f"_ruamel_yaml {get_version_string()}"
    except ImportError:  # ruamel's pure-Python parser
        libyaml = "no libyaml"
    digest.update(f"\0ruamel.yaml {ruamel.yaml.__version__}, {libyaml}".encode())
    return digest.hexdigest()
