{{/*
Giant Swarm: the llmisvc presets (files/llmisvcconfigs/resources.yaml, kept upstream's verbatim)
rendered with
- ghcr.io/llm-d/ rewritten to kserve.llmisvcConfigs.imageRegistry, docker.io/vllm/ to its gsoci
  copy (digests kept), and the hardcoded namespace: kserve following .Release.Namespace
  (upstream's kserve-common.replaceNamespace);
- kserve.llmisvcConfigs.images.<preset>.<container> replacing one container's image;
- kserve.llmisvcConfigs.rolloutStrategy in the single-node workload presets (on versions whose
  LLMInferenceServiceConfig CRD lacks spec.rolloutStrategy, overlay 60 inserts a guard after
  $singleNode that fails rendering when it is set);
- kserve.llmisvcConfigs.tracing merged into the tracing preset's spec.tracing.
A preset without such an override is emitted as text, byte for byte as upstream's document when
the registry is ghcr.io/llm-d/ and the release namespace is kserve.
*/}}
{{- define "kserve-runtime-configs.giantswarm.llmisvcConfigs" -}}
{{- $values := .Values.kserve.llmisvcConfigs -}}
{{- $registry := $values.imageRegistry | default "ghcr.io/llm-d/" -}}
{{- $images := $values.images | default dict -}}
{{- $singleNode := list "kserve-config-llm-template" "kserve-config-llm-decode-template" "kserve-config-llm-prefill-template" -}}
{{- $out := list -}}
{{- range $doc := splitList "\n---\n" (.Files.Get "files/llmisvcconfigs/resources.yaml") -}}
{{- $text := $doc | replace "ghcr.io/llm-d/" $registry | replace "docker.io/vllm/" "gsoci.azurecr.io/giantswarm/" -}}
{{- $text = include "kserve-common.replaceNamespace" (list $text $.Release.Namespace) -}}
{{- $name := (fromYaml $text).metadata.name | default "" -}}
{{- $overrides := get $images $name | default dict -}}
{{- $rollout := and $values.rolloutStrategy (has $name $singleNode) -}}
{{- $tracing := and $values.tracing (eq $name "kserve-config-llm-tracing") -}}
{{- if or $overrides $rollout $tracing -}}
{{- $obj := fromYaml $text -}}
{{- if $overrides -}}
{{- include "kserve-runtime-configs.giantswarm.overrideImages" (dict "node" $obj.spec "images" $overrides) -}}
{{- end -}}
{{- if $rollout -}}
{{- $_ := set $obj.spec "rolloutStrategy" $values.rolloutStrategy -}}
{{- end -}}
{{- if $tracing -}}
{{- $_ := set $obj.spec "tracing" (mergeOverwrite (deepCopy ($obj.spec.tracing | default dict)) $values.tracing) -}}
{{- end -}}
{{- $text = toYaml $obj -}}
{{- end -}}
{{- $out = append $out $text -}}
{{- end -}}
{{- join "\n---\n" $out -}}
{{- end -}}

{{/*
Set the image of every container (in any containers or initContainers list below "node") whose
name is a key of "images".
*/}}
{{- define "kserve-runtime-configs.giantswarm.overrideImages" -}}
{{- $images := .images -}}
{{- if kindIs "map" .node -}}
{{- range $key, $value := .node -}}
{{- if and (has $key (list "containers" "initContainers")) (kindIs "slice" $value) -}}
{{- range $container := $value -}}
{{- if and (kindIs "map" $container) (hasKey $images ($container.name | default "")) -}}
{{- $_ := set $container "image" (get $images $container.name) -}}
{{- end -}}
{{- end -}}
{{- else -}}
{{- include "kserve-runtime-configs.giantswarm.overrideImages" (dict "node" $value "images" $images) -}}
{{- end -}}
{{- end -}}
{{- else if kindIs "slice" .node -}}
{{- range $item := .node -}}
{{- include "kserve-runtime-configs.giantswarm.overrideImages" (dict "node" $item "images" $images) -}}
{{- end -}}
{{- end -}}
{{- end -}}
