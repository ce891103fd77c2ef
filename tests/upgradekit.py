"""A stand-in for the next upstream release, built from the latest archive in the upstream folder.

What a release after the latest one changes in ways the project must take without a hand edit:
the charts' version, an image tag written without ``v`` (``0.9.0``), a runtime added to a
values.yaml, the InferenceService CRD's cert-manager annotation (upstream carries it after v0.20.0)
and, optionally, ``spec.rolloutStrategy`` in the LLMInferenceServiceConfig CRD.
"""

from __future__ import annotations

import re
import shutil
import tarfile
from pathlib import Path

from conftest import TAGS

LATEST = TAGS[-1]

ROLLOUT_STRATEGY = """\
                rolloutStrategy:
                  description: How the workload's pods are replaced.
                  properties:
                    maxSurge:
                      anyOf:
                      - type: integer
                      - type: string
                      x-kubernetes-int-or-string: true
                    maxUnavailable:
                      anyOf:
                      - type: integer
                      - type: string
                      x-kubernetes-int-or-string: true
                  type: object
"""

NEW_RUNTIME = """\
    vllmcpuserver:
      image: vllm/vllm-openai-cpu
      imageTag: 0.9.0
"""


def _rewrite(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path}: no {old!r}"
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def later_archive(latest: Path, dest: Path, tag: str = "v0.21.0", *, rollout_strategy: bool = False) -> Path:
    """``dest/kserve-<tag>.tar.gz``: the extracted ``latest`` upstream tree, changed as described above.

    Returns the archive; ``dest/kserve-<version>/`` keeps the tree.
    """
    version = tag.removeprefix("v")
    tree = dest / f"kserve-{version}"
    shutil.copytree(latest, tree)
    old = LATEST.removeprefix("v")
    for chart_yaml in sorted(tree.glob("charts/*/Chart.yaml")):
        text = chart_yaml.read_text(encoding="utf-8")
        chart_yaml.write_text(re.sub(rf"\bv?{re.escape(old)}\b", lambda m: m.group(0).replace(old, version), text))
    for values in sorted(tree.glob("charts/*/values.yaml")):
        text = values.read_text(encoding="utf-8")
        values.write_text(text.replace(f"version: {LATEST}\n", f"version: {tag}\n"), encoding="utf-8")
    presets = tree / "charts/kserve-runtime-configs/files/llmisvcconfigs/resources.yaml"
    first = re.search(r"(ghcr\.io/llm-d/[a-z0-9-]+):v(\d+\.\d+\.\d+)\b", presets.read_text(encoding="utf-8"))
    assert first, "no ghcr.io/llm-d/ image with a v tag"
    _rewrite(presets, first.group(0), f"{first.group(1)}:{first.group(2)}", count=-1)
    values = tree / "charts/kserve-runtime-configs/values.yaml"
    text = values.read_text(encoding="utf-8")
    at = re.search(r"(?m)^    modelNamePlaceholder: .*\n", text)
    assert at, f"{values}: no servingruntime.modelNamePlaceholder"
    values.write_text(text[: at.end()] + NEW_RUNTIME + text[at.end() :], encoding="utf-8")
    isvc = tree / "charts/kserve-crd/templates/serving.kserve.io_inferenceservices.yaml"
    if "inject-ca-from" not in isvc.read_text(encoding="utf-8"):
        _rewrite(isvc, "  annotations:\n", "  annotations:\n    cert-manager.io/inject-ca-from: kserve/serving-cert\n")
    if rollout_strategy:
        for crd in sorted(tree.glob("charts/*/templates/serving.kserve.io_llminferenceserviceconfigs.yaml")):
            _rewrite(
                crd,
                "            spec:\n              properties:\n",
                "            spec:\n              properties:\n" + ROLLOUT_STRATEGY,
                -1,
            )
    archive = dest / f"kserve-{tag}.tar.gz"
    with tarfile.open(archive, "w:gz") as out:
        out.add(tree, arcname=tree.name)
    return archive
