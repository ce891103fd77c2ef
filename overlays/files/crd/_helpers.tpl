{{/*
Giant Swarm: the chart name, chart label and common labels (with the team label) of a CRD
chart, which upstream ships without helpers.
*/}}
{{- define "${chart}.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Chart name and version as used by the chart label.
*/}}
{{- define "${chart}.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Common labels.
*/}}
{{- define "${chart}.labels" -}}
helm.sh/chart: {{ include "${chart}.chart" . }}
{{ include "${chart}.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
application.giantswarm.io/team: {{ index .Chart.Annotations "application.giantswarm.io/team" | quote }}
{{- end }}

{{/*
Selector labels.
*/}}
{{- define "${chart}.selectorLabels" -}}
app.kubernetes.io/name: {{ include "${chart}.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
