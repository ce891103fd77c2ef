"""The upgrade report's RBAC and CRD sections, on small hand-written charts with exact expected rows."""

from __future__ import annotations

from gsvendor.report.upgrade import _crds, _images, _rbac
from gsvendor.vendoring.rewrites import Replacement
from gsvendor.vendoring.upgrade import (
    ChartUpgrade,
    compare_crds,
    compare_images,
    compare_rbac,
    crd_shapes,
    render_rewrites,
)

ROLE = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: manager
rules:
  - apiGroups: [admissionregistration.k8s.io]
    resources: [validatingwebhookconfigurations, mutatingwebhookconfigurations]
    verbs: [get, list, watch, update]
  - apiGroups: [""]
    resources: [secrets]
    resourceNames: [webhook-cert]
    verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: leader-election
rules:
  - apiGroups: [coordination.k8s.io]
    resources: [leases]
    verbs: [get, create]
"""

ROLE_AFTER = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: manager
rules:
  - apiGroups: [""]
    resources: [secrets]
    resourceNames: [webhook-cert]
    verbs: [get]
  - apiGroups: [resource.k8s.io]
    resources: [resourceclaims]
    verbs: [get]
  - nonResourceURLs: [/metrics]
    verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: metrics-reader
rules: []
"""


def test_rbac_rules_added_and_removed_per_role() -> None:
    changes = compare_rbac({"files/rbac.yaml": ROLE.encode()}, {"files/rbac.yaml": ROLE_AFTER.encode()})
    chart = ChartUpgrade(name="c", dest="helm/c", rbac=changes)
    assert _rbac(chart) == [
        "### RBAC",
        "",
        "Rules of each ClusterRole and Role, as `verbs × group/resource`, added and removed:",
        "",
        "| role | file | rules added | rules removed |",
        "|---|---|---|---|",
        "| ClusterRole `manager` | `files/rbac.yaml` | (1) | (2) |",
        "| ClusterRole `metrics-reader` (new) | `files/rbac.yaml` | - | - |",
        "| Role `leader-election` (gone) | `files/rbac.yaml` | - | (3) |",
        "",
        "- (1) rules added: `get × /metrics`, `get × resource.k8s.io/resourceclaims`",
        "- (2) rules removed: `get,list,update,watch × admissionregistration.k8s.io/mutatingwebhookconfigurations`, "
        "`get,list,update,watch × admissionregistration.k8s.io/validatingwebhookconfigurations`",
        "- (3) rules removed: `create,get × coordination.k8s.io/leases`",
        "",
    ]


def crd(*, storage: str = "v1", served_v1: bool = True, conversion: str = "None", mode: str, required: str) -> bytes:
    return f"""\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    plural: widgets
  conversion:
    strategy: {conversion}
  versions:
    - name: v1
      served: {str(served_v1).lower()}
      storage: {str(storage == "v1").lower()}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              required: [{required}]
              properties:
                replicas:
                  x-kubernetes-int-or-string: true
                mode:
{mode}
                legacy:
                  type: string
    - name: v2
      served: true
      storage: {str(storage == "v2").lower()}
      schema:
        openAPIV3Schema:
          type: object
""".encode()


OLD_MODE = "                  type: string\n                  enum: [fast, safe, lazy]"
NEW_MODE = "                  type: string\n                  enum: [fast, safe]"


def test_crd_changes_are_classified() -> None:
    old = {"templates/crd.yaml": crd(mode=OLD_MODE, required="mode")}
    new_crd = crd(storage="v2", served_v1=False, conversion="Webhook", mode=NEW_MODE, required="mode, replicas")
    new = {
        "templates/crd.yaml": new_crd.replace(b"x-kubernetes-int-or-string: true", b"type: integer").replace(
            b"                legacy:\n                  type: string\n", b""
        )
    }
    [change] = compare_crds(crd_shapes(old), crd_shapes(new))
    assert change.classified == (
        "storage version v1 → v2",
        "v1 no longer served",
        "conversion None → Webhook",
        "field removed: v1: legacy",
        "v1: spec.replicas type narrowed: int-or-string → integer",
        "v1: spec.replicas newly required",
        "v1: spec.mode enum narrowed (no longer: lazy)",
    )
    lines = _crds(ChartUpgrade(name="c", dest="helm/c", crds=[change]))
    assert lines[-8:] == [
        "Changes a reviewer should look at (served and stored versions, conversion, `spec` fields):",
        "",
        "- `widgets.example.com`: storage version v1 → v2; v1 no longer served; conversion None → Webhook; "
        "field removed: v1: legacy; v1: spec.replicas type narrowed: int-or-string → integer; "
        "v1: spec.replicas newly required; v1: spec.mode enum narrowed (no longer: lazy)",
        "",
        "Reads that need the conversion webhook (`conversion.strategy: Webhook`):",
        "",
        "- `widgets.example.com`: objects stored at v1 need the conversion webhook (the controller) to be read at v2",
        "",
    ]


def webhook_section(old: bytes, new: bytes) -> list[str]:
    """The CRD section's conversion-webhook rows (the lines after their heading)."""
    changes = compare_crds(*(crd_shapes({"templates/crd.yaml": data}) for data in (old, new)))
    lines = _crds(ChartUpgrade(name="c", dest="helm/c", crds=changes))
    heading = "Reads that need the conversion webhook (`conversion.strategy: Webhook`):"
    return lines[lines.index(heading) + 2 : -1] if heading in lines else []


def test_a_storage_version_change_under_a_webhook_names_every_other_served_version() -> None:
    old = crd(conversion="Webhook", mode=OLD_MODE, required="mode")
    new = crd(storage="v2", conversion="Webhook", mode=OLD_MODE, required="mode")
    assert webhook_section(old, new) == [
        "- `widgets.example.com`: objects stored at v1 need the conversion webhook (the controller) to be read at v2",
    ]
    # the way back: objects stored at v2 are read at v1 through the webhook
    assert webhook_section(new, old) == [
        "- `widgets.example.com`: objects stored at v2 need the conversion webhook (the controller) to be read at v1",
    ]


def test_a_newly_served_version_under_a_webhook_needs_it() -> None:
    old = crd(storage="v2", served_v1=False, conversion="Webhook", mode=OLD_MODE, required="mode")
    new = crd(storage="v2", served_v1=True, conversion="Webhook", mode=OLD_MODE, required="mode")
    assert webhook_section(old, new) == [
        "- `widgets.example.com`: objects stored at v2 need the conversion webhook (the controller) to be read at v1",
    ]


def test_no_webhook_row_without_the_webhook_strategy_or_a_version_change() -> None:
    base = crd(conversion="Webhook", mode=OLD_MODE, required="mode")
    # served and storage versions unchanged: the webhook was needed before as much as after
    assert webhook_section(base, crd(conversion="Webhook", mode=NEW_MODE, required="mode")) == []
    # strategy None: the API server converts by rewriting apiVersion, no controller involved
    old = crd(mode=OLD_MODE, required="mode")
    assert webhook_section(old, crd(storage="v2", mode=OLD_MODE, required="mode")) == []
    # a webhook given up in the new CRD is not asked of it
    assert webhook_section(base, crd(storage="v2", mode=OLD_MODE, required="mode")) == []


def test_an_unchanged_crd_is_not_listed() -> None:
    same = {"templates/crd.yaml": crd(mode=OLD_MODE, required="mode")}
    assert compare_crds(crd_shapes(same), crd_shapes(dict(same))) == []


PRESETS = """\
apiVersion: v1
kind: Pod
metadata:
  name: preset
spec:
  containers:
    - name: main
      image: ghcr.io/llm-d/llm-d-cuda:{tag}
    - name: side
      image: quay.io/other/side:{tag}
"""

# the template reads the presets and rewrites one registry by prefix, to a value values.yaml (absent) lacks:
# helm would fail, so nothing is said of it; the helper's replace holds no "/"
TEMPLATES = {
    "templates/presets.yaml": b'{{ .Files.Get "files/presets.yaml" | replace "ghcr.io/llm-d/" .Values.registry }}\n',
    "templates/_helpers.tpl": b'{{- define "c.chart" -}}{{ .Chart.Version | replace "+" "_" }}{{- end -}}\n',
}


def test_image_rows_rewritten_at_render_time() -> None:
    assert render_rewrites(TEMPLATES) == {"files/presets.yaml": (Replacement("ghcr.io/llm-d/", None),)}
    old = {"files/presets.yaml": PRESETS.format(tag="v1").encode()}
    new = {"files/presets.yaml": PRESETS.format(tag="v2").encode()}
    images = compare_images(old, new, ["gsoci.azurecr.io/"], (render_rewrites(TEMPLATES), render_rewrites(TEMPLATES)))
    assert _images(ChartUpgrade(name="c", dest="helm/c", images=images)) == [
        "### Image references",
        "",
        "0 added, 0 removed, 2 changed (after the overlays; allowed: the check-images policy):",
        "",
        "| change | where | old | new | allowed |",
        "|---|---|---|---|---|",
        "| changed | (1) | `ghcr.io/llm-d/llm-d-cuda:v1` | `ghcr.io/llm-d/llm-d-cuda:v2` | (2) |",
        "| changed | (3) | `quay.io/other/side:v1` | `quay.io/other/side:v2` | (4) |",
        "",
        "- (1) where: `files/presets.yaml Pod/preset spec.containers[main].image`",
        "- (2) allowed: rewritten at render time (check-images judges the rendered reference)",
        "- (3) where: `files/presets.yaml Pod/preset spec.containers[side].image`",
        "- (4) allowed: no, as written",
        "",
        "References under `files/` and `crds/` are as the chart's files hold them; where a template reading the "
        'file rewrites them by prefix (`replace "ghcr.io/llm-d/" $registry`), written → rendered, the replacement '
        "resolved from the chart's templates and values.yaml defaults, and judged as rendered; "
        '"rewritten at render time (check-images judges the rendered reference)" marks those whose replacement '
        "is not resolvable without rendering. `gsvendor check-images` judges the rendered charts.",
        "",
    ]
    # without a template that rewrites the file, the text as written is what renders
    plain = compare_images(old, new, ["gsoci.azurecr.io/"])
    assert [(i.where.rsplit(" ", 1)[1], i.status, i.rewritten) for i in plain] == [
        ("spec.containers[main].image", "offender", False),
        ("spec.containers[side].image", "offender", False),
    ]
