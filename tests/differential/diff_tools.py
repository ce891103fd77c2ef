"""The real Go tools and gsvendor's emulations side by side, for the differential tests.

The tools are looked up at ``<repo>/.tools/bin/<name>`` (where ``hack/install-go-tools.sh`` puts
them), then on ``PATH``; a test needing an absent tool fails under CI (skips elsewhere) naming it.
Each ``real_*`` function runs a tool the way Giant Swarm's pipeline does (from the project root,
many charts per process where the tool allows it) and each ``ours_*`` the in-process emulation on
the same files; :func:`first_difference` names the first byte that differs.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from conftest import require_tool, tool_path

from gsvendor.config import GenerateSettings
from gsvendor.errors import GsvendorError
from gsvendor.generate.golang import encoding_json as gojson
from gsvendor.generate.readme.template import render_readme
from gsvendor.generate.schema.model import SchemaError
from gsvendor.generate.schema.output import dumps, generate_schema

ROOT = Path(__file__).resolve().parents[2]
TOOLS = {
    "helm-docs": "helm-docs v1.14.2 (github.com/norwoodj/helm-docs/cmd/helm-docs)",
    "helm-values-schema-json": "helm-values-schema-json v2.5.0 (github.com/losisin/helm-values-schema-json/v2)",
    "schemalint": "schemalint v2.6.1 (github.com/giantswarm/schemalint/v2)",
}
# devctl's README.md.gotmpl for Giant Swarm charts: helm-docs' named sections in this order
DEVCTL_README = "\n\n".join(
    [
        '{{ template "chart.header" . }}\n{{ template "chart.deprecationWarning" . }}',
        '{{ template "chart.description" . }}',
        '{{ template "chart.homepageLine" . }}',
        '{{ template "chart.maintainersSection" . }}',
        '{{ template "chart.sourcesSection" . }}',
        '{{ template "chart.requirementsSection" . }}',
        '{{ template "chart.valuesSection" . }}',
    ]
)
# devctl's .schema.yaml settings (paths relative to the project root)
DEVCTL_SCHEMA = """\
values:
  - {dest}/values.yaml
draft: 2020
indent: 4
output: {dest}/values.schema.json
bundle: true
bundleRoot: ""
bundleWithoutID: true
k8sSchemaURL:
  https://raw.githubusercontent.com/yannh/kubernetes-json-schema/refs/heads/master/{{{{ .K8sSchemaVersion }}}}/
k8sSchemaVersion: "v1.33.1"
useHelmDocs: true
noAdditionalProperties: true
noDefaultGlobal: false
schemaRoot:
  additionalProperties: false
"""
PLAIN_SCHEMA = "values: [{dest}/values.yaml]\noutput: {dest}/values.schema.json\n"


def normalize_json(data: bytes) -> bytes:
    """``schemalint normalize`` v2.6.1 of the JSON text ``data`` (any JSON value, as Go reads it): the
    bytes it writes, 4-space indented. Raises :class:`SchemaError` where the tool exits 1 (not JSON)."""
    try:
        value = gojson.loads(data)
    except gojson.GoJSONError as exc:
        raise SchemaError(str(exc)) from None
    return dumps(value, 4)


def tool(name: str) -> str:
    """The path of tool ``name``: a missing one fails the test under CI and skips it elsewhere
    (:func:`conftest.require_tool`); a helm-docs without its release version stamp likewise."""
    found = require_tool(name, tool_path(name), f"{TOOLS[name]}: .tools/bin/{name} or PATH; run make tools")
    if name == "helm-docs":
        version = subprocess.run([found, "--version"], capture_output=True, text=True, check=False)
        if "1.14.2" not in version.stdout:
            require_tool(
                f"helm-docs 1.14.2 as released (--version of {found} says {version.stdout.strip()!r})",
                None,
                'build it with -ldflags "-X main.version=1.14.2", as hack/install-go-tools.sh does',
            )
    return found


@dataclass
class Tally:
    """What a differential test compared: inputs, every difference (none may remain), and the inputs
    both tools refused (an agreement, but listed by input in the summary rather than counted as identical)."""

    compared: int = 0
    differences: list[str] = field(default_factory=list)
    both_refused: list[str] = field(default_factory=list)

    def check(self, label: str, real: bytes | None, ours: bytes | None) -> None:
        self.compared += 1
        if real is None and ours is None:
            self.both_refused.append(label)
        elif real != ours:
            self.differences.append(f"{label}: {first_difference(real, ours)}")

    def add(self, other: Tally) -> None:
        """Count ``other``'s comparisons into this tally."""
        self.compared += other.compared
        self.differences += other.differences
        self.both_refused += other.both_refused

    @property
    def identical(self) -> int:
        """Inputs for which both wrote the same bytes."""
        return self.compared - len(self.differences) - len(self.both_refused)

    def summary(self) -> list[str]:
        """The summary's lines: the counts, then every input both refused."""
        lines = [
            f"{self.compared} compared: {self.identical} identical, {len(self.differences)} different, "
            f"{len(self.both_refused)} both refused"
        ]
        lines += [f"  both refused: {label}" for label in self.both_refused]
        return lines


TALLIES: dict[str, Tally] = {}


def tally(name: str) -> Tally:
    """The run-wide tally called ``name`` (tests/conftest.py prints every tally in the summary)."""
    return TALLIES.setdefault(name, Tally())


def first_difference(real: bytes | None, ours: bytes | None) -> str:
    """Where ``ours`` first differs from ``real`` (``None``: no output / an error)."""
    if real is None or ours is None:
        real_text = "wrote nothing" if real is None else f"{len(real)} bytes"
        return f"real {real_text}, ours {'failed' if ours is None else f'{len(ours)} bytes'}"
    at = next((i for i, (a, b) in enumerate(zip(real, ours, strict=False)) if a != b), min(len(real), len(ours)))
    return f"byte {at}: real {real[max(0, at - 40) : at + 40]!r} vs ours {ours[max(0, at - 40) : at + 40]!r}"


def chart_files(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` except generated outputs."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name not in ("README.md", "values.schema.json")
    }


def real_readmes(search_root: Path, sort_order: str) -> None:
    """Run helm-docs once over every chart below ``search_root`` (each gets its README.md)."""
    subprocess.run(
        [
            tool("helm-docs"),
            f"--chart-search-root={search_root}",
            f"--sort-values-order={sort_order}",
            "--log-level=error",
        ],
        capture_output=True,
        check=False,
        timeout=600,
    )


def real_schema(project: Path, config: str, output: str) -> bytes | None:
    """``helm schema --config CONFIG`` run in ``project``: the ``output`` file it wrote, or ``None``."""
    target = project / output
    target.unlink(missing_ok=True)
    done = subprocess.run(
        [tool("helm-values-schema-json"), "--config", config], cwd=project, capture_output=True, check=False, timeout=60
    )
    return None if done.returncode or not target.is_file() else target.read_bytes()


def real_normalize(path: Path) -> bytes | None:
    """``schemalint normalize PATH`` (to stdout) by the real tool where it is installed; else by the
    emulation that matches the tool's 810 recorded outputs byte for byte (test_schemalint_recorded.py),
    the module proxy refusing the tool's module. ``None`` on failure."""
    found = tool_path("schemalint")
    if found is None:
        try:
            return normalize_json(path.read_bytes())
        except GsvendorError:
            return None
    done = subprocess.run([found, "normalize", str(path)], capture_output=True, check=False, timeout=60)
    return None if done.returncode else done.stdout


def normalize_source() -> str:
    """Which schemalint :func:`real_normalize` runs (for the tallies' names)."""
    return "real schemalint" if tool_path("schemalint") else "schemalint emulation checked on recorded outputs"


def ours_readme(folder: Path, sort_order: str) -> bytes | None:
    """gsvendor's README.md for the chart in ``folder``; ``None`` where it stops with an error."""
    try:
        return render_readme(
            chart_files(folder), chart_dir=folder.as_posix(), settings=GenerateSettings(sort_values_order=sort_order)
        )
    except GsvendorError:
        return None


def ours_schema(project: Path, folder: Path, normalize: str = "none") -> tuple[str, bytes] | None:
    """gsvendor's ``(output path, bytes)`` for the chart in ``folder`` of ``project``; ``None`` on error."""
    try:
        return generate_schema(
            chart_files(folder), chart_dir=folder.as_posix(), cwd=project.as_posix(), normalize=normalize
        )
    except GsvendorError:
        return None
