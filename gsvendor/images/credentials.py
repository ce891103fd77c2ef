"""check-images ``--resolve``'s registry credentials (a Docker configuration file) and ``--insecure-registry`` hosts."""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gsvendor.errors import ConfigError, UsageError
from gsvendor.images.reference import DEFAULT_REGISTRY, DOMAIN_RE

# Docker Hub: credentials are stored under these names (its API is registry.py's registry-1.docker.io).
_DOCKER_HUB_ALIASES = {"index.docker.io", "registry-1.docker.io", "docker.io"}


@dataclass(frozen=True)
class Credentials:
    """Registry credentials from a Docker configuration file: ``auths``: registry host → the base64
    ``user:password`` of HTTP Basic; ``source``: the file read, if any; ``notes``: what was read but not used."""

    auths: Mapping[str, str] = field(default_factory=dict)
    source: Path | None = None
    notes: tuple[str, ...] = ()

    def for_host(self, host: str) -> str | None:
        """The base64 ``user:password`` for ``host``, or ``None``."""
        return self.auths.get(_credential_host(host))


def _credential_host(key: str) -> str:
    # Docker writes "https://index.docker.io/v1/" for Docker Hub; other tools "https://host" or "host/v2/"
    host = re.sub(r"^[a-z]+://", "", key.strip(), flags=re.I).split("/", 1)[0].lower()
    return DEFAULT_REGISTRY if host in _DOCKER_HUB_ALIASES else host


def default_docker_config() -> Path:
    """``$DOCKER_CONFIG/config.json`` when ``DOCKER_CONFIG`` is set, else ``~/.docker/config.json`` (Docker's rule)."""
    folder = os.environ.get("DOCKER_CONFIG")
    return Path(folder) / "config.json" if folder else Path.home() / ".docker" / "config.json"


def load_credentials(path: Path | None = None) -> Credentials:
    """Registry credentials from a Docker ``config.json``: ``path`` (``--registry-config``, must exist) or
    :func:`default_docker_config` if it exists; ``auths`` entries' base64 ``auth`` or ``username`` and
    ``password``. ``credsStore``, ``credHelpers`` (programs, which may prompt) and ``identitytoken`` are only
    named in ``notes``. Raises :class:`UsageError` (no such ``--registry-config``), :class:`ConfigError`."""
    file = path or default_docker_config()
    label = f"--registry-config {file}" if path else str(file)
    if not file.is_file():
        if path:
            raise UsageError(f"{label}: no such file")
        return Credentials()
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{label}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{label}:{exc.lineno}: not JSON: {exc.msg}") from None
    except RecursionError:
        raise ConfigError(f"{label}: not JSON a Docker configuration holds (nested too deeply)") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{label}: not a Docker configuration (a JSON object with 'auths')")
    auths_data = data.get("auths", {})
    if not isinstance(auths_data, dict):
        raise ConfigError(f"{label}: auths: must be an object (registry host → credentials)")
    auths: dict[str, str] = {}
    notes: list[str] = []
    for key, entry in auths_data.items():
        if not isinstance(entry, dict):
            raise ConfigError(f"{label}: auths.{key}: must be an object")
        if encoded := entry.get("auth"):
            try:
                decoded = base64.b64decode(str(encoded), validate=True).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError):
                raise ConfigError(f"{label}: auths.{key}.auth: not base64 of 'user:password'") from None
            if ":" not in decoded:
                raise ConfigError(f"{label}: auths.{key}.auth: not base64 of 'user:password' (no ':')")
            auths[_credential_host(key)] = str(encoded)
        elif entry.get("username") and entry.get("password") is not None:
            user_password = f"{entry['username']}:{entry['password']}".encode()
            auths[_credential_host(key)] = base64.b64encode(user_password).decode("ascii")
        elif entry.get("identitytoken"):
            notes.append(f"{label}: auths.{key}: identitytoken is not used; {key} is asked anonymously")
    if store := data.get("credsStore"):
        notes.append(
            f"{label}: credsStore {store!r} is not run; registries whose credentials it holds are asked anonymously"
        )
    if isinstance(helpers := data.get("credHelpers"), dict) and helpers:
        hosts = ", ".join(sorted(str(h) for h in helpers))
        notes.append(f"{label}: credHelpers are not run; {hosts} asked anonymously unless auths has them")
    return Credentials(auths=auths, source=file, notes=tuple(notes))


def insecure_hosts(values: Sequence[str]) -> frozenset[str]:
    """Validate ``--insecure-registry HOST[:PORT]`` values (plain HTTP for exactly these hosts). Raises
    :class:`UsageError` for a value with a scheme, a path or a malformed host."""
    for value in values:
        if not DOMAIN_RE.match(value.strip()):
            raise UsageError(f"--insecure-registry {value!r}: expected HOST or HOST:PORT (no scheme, no path)")
    return frozenset(value.strip().lower() for value in values)
