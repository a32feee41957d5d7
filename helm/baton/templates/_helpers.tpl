{{/*
Names, labels, images and the RBAC rules of the Baton chart.
*/}}

{{/* The chart name, or nameOverride. */}}
{{- define "baton.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every resource name: fullnameOverride, else the release name when it already contains the
chart name, else "<release>-<chart>". Kept to 50 characters so that suffixes such as "-operator" fit in 63.
*/}}
{{- define "baton.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "baton.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every resource. */}}
{{- define "baton.labels" -}}
helm.sh/chart: {{ include "baton.chart" . }}
app.kubernetes.io/name: {{ include "baton.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: baton
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Selector labels of one component; call with (dict "root" $ "component" "operator"). */}}
{{- define "baton.selectorLabels" -}}
app.kubernetes.io/name: {{ include "baton.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* Labels of one component's resources; call with (dict "root" $ "component" "operator"). */}}
{{- define "baton.componentLabels" -}}
{{ include "baton.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "baton.operator.fullname" -}}
{{- printf "%s-operator" (include "baton.fullname" .) }}
{{- end }}

{{- define "baton.runtime.fullname" -}}
{{- printf "%s-runtime" (include "baton.fullname" .) }}
{{- end }}

{{- define "baton.operator.serviceAccountName" -}}
{{- if .Values.operator.serviceAccount.create }}
{{- default (include "baton.operator.fullname" .) .Values.operator.serviceAccount.name }}
{{- else }}
{{- required "operator.serviceAccount.name is required when operator.serviceAccount.create is false" .Values.operator.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "baton.runtime.serviceAccountName" -}}
{{- if .Values.runtime.serviceAccount.create }}
{{- default (include "baton.runtime.fullname" .) .Values.runtime.serviceAccount.name }}
{{- else }}
{{- required "runtime.serviceAccount.name is required when runtime.serviceAccount.create is false" .Values.runtime.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* An image reference: repository@digest, else repository:tag (tag defaults to appVersion). Call with
(dict "root" $ "image" .Values.operator.image). */}}
{{- define "baton.image" -}}
{{- if .image.digest }}
{{- printf "%s@%s" .image.repository .image.digest }}
{{- else }}
{{- printf "%s:%s" .image.repository (default .root.Chart.AppVersion .image.tag | toString) }}
{{- end }}
{{- end }}

{{/* The Secrets credentials come from: the user's, else the one the chart creates. */}}
{{- define "baton.rabbitmqAdminSecretName" -}}
{{- default (printf "%s-rabbitmq-admin" (include "baton.fullname" .)) .Values.rabbitmq.admin.existingSecret }}
{{- end }}

{{- define "baton.runtimeDatabaseSecretName" -}}
{{- default (printf "%s-runtime-database" (include "baton.fullname" .)) .Values.runtime.database.existingSecret }}
{{- end }}

{{- define "baton.runtimeRabbitmqSecretName" -}}
{{- default (printf "%s-runtime-rabbitmq" (include "baton.fullname" .)) .Values.runtime.rabbitmq.existingSecret }}
{{- end }}

{{/* The runtime API's bearer token(s): the user's Secret, else the one the operator creates (baton.operatorMakesApiTokens). */}}
{{- define "baton.runtimeApiSecretName" -}}
{{- default (printf "%s-runtime-api" (include "baton.fullname" .)) .Values.runtime.apiToken.existingSecret }}
{{- end }}

{{/*
"true" when the operator creates the runtime's API token Secret at its start if it is missing (token mode, the runtime
installed, no runtime.apiToken.existingSecret; operator/.../runtime/RuntimeApiTokens.java says why the operator and not
the chart). Never a template of the chart: a random token rendered by the chart would change at every `helm template`
(Argo CD), and could be read back from the cluster only where Helm itself installs. Also checks the token keys.
*/}}
{{- define "baton.operatorMakesApiTokens" -}}
{{- $api := .Values.runtime.apiToken }}
{{- $_ := required "runtime.apiToken.tokenKey must name the key of the API token" $api.tokenKey }}
{{- if and $api.readTokenKey (eq (toString $api.readTokenKey) (toString $api.tokenKey)) }}
{{- fail "runtime.apiToken.readTokenKey must differ from runtime.apiToken.tokenKey: the runtime refuses a read-only token equal to the full one" }}
{{- end }}
{{- if and .Values.runtime.enabled (not (include "baton.kubernetesAuth" .)) (not $api.existingSecret) }}true{{- end }}
{{- end }}

{{/* "true" when callers of the runtime are known by Kubernetes tokens and RBAC (runtime.auth.mode=kubernetes). */}}
{{- define "baton.kubernetesAuth" -}}
{{- if eq .Values.runtime.auth.mode "kubernetes" }}true{{- end }}
{{- end }}

{{/* The runtime URL the operator reads live counts from. */}}
{{- define "baton.operator.runtimeUrl" -}}
{{- if .Values.operator.runtimeUrl }}
{{- .Values.operator.runtimeUrl }}
{{- else if .Values.runtime.enabled }}
{{- printf "http://%s.%s.svc:%v" (include "baton.runtime.fullname" .) .Release.Namespace .Values.runtime.service.port }}
{{- end }}
{{- end }}

{{/* "true" when the operator keeps the runtime's broker user and its Secret (no existingSecret, no uri). */}}
{{- define "baton.operatorManagesRuntimeCredentials" -}}
{{- if and .Values.runtime.enabled (not .Values.runtime.rabbitmq.existingSecret) (not .Values.runtime.rabbitmq.uri) }}true{{- end }}
{{- end }}

{{- define "baton.operator.leaseName" -}}
{{- default (include "baton.operator.fullname" .) .Values.operator.leaderElection.leaseName }}
{{- end }}

{{/* The runtime's OpenTelemetry settings (otel.*) as the standard OTEL_* variables. */}}
{{- define "baton.otelEnv" -}}
{{- $otel := .Values.otel }}
- name: OTEL_PROPAGATORS
  value: {{ join "," $otel.propagators | quote }}
{{- if $otel.enabled }}
- name: OTEL_TRACES_EXPORTER
  value: otlp
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: {{ $otel.protocol | quote }}
{{- with $otel.endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ . | quote }}
{{- end }}
{{- end }}
{{- with $otel.resourceAttributes }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ include "baton.keyValues" . | quote }}
{{- end }}
{{- with $otel.sampler.type }}
- name: OTEL_TRACES_SAMPLER
  value: {{ . | quote }}
{{- end }}
{{- with $otel.sampler.arg }}
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ . | quote }}
{{- end }}
{{- end }}

{{/* A map as k=v,k=v in key order (OTEL_RESOURCE_ATTRIBUTES). */}}
{{- define "baton.keyValues" -}}
{{- $pairs := list }}
{{- range $k, $v := . }}{{ $pairs = append $pairs (printf "%s=%v" $k $v) }}{{ end }}
{{- join "," $pairs }}
{{- end }}

{{/* An env var read from a Secret key; call with (dict "name" "X" "secret" "s" "key" "k"). */}}
{{- define "baton.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .secret | quote }}
      key: {{ .key | quote }}
{{- end }}

{{/*
The operator's permissions in the namespaces it watches (a ClusterRole, or a Role in each watched namespace), as
read from operator/src, JOSDK 5.2.3 and fabric8 7.5.2. helm/src/test/.../RequiredPermissions.java holds the same
list as a table with the reason for each line; the tests check the chart grants exactly that and that a real
operator asks for nothing else.
*/}}
{{- define "baton.operator.rules" -}}
- apiGroups: ["baton.dev"]
  resources: ["workflows", "workerservices"]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: ["baton.dev"]
  resources: ["retrypolicies"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["baton.dev"]
  resources: ["workflows/status", "workerservices/status", "retrypolicies/status"]
  verbs: ["patch"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "watch", "create", "update", "delete"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  {{- if .Values.operator.serverSideApply }}
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
  {{- else }}
  verbs: ["get", "list", "watch", "create", "update", "delete"]
  {{- end }}
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  {{- if .Values.operator.serverSideApply }}
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
  {{- else }}
  verbs: ["get", "list", "watch", "create", "update", "delete"]
  {{- end }}
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create"]
{{- if .Values.autoscaling.keda.enabled }}
- apiGroups: ["keda.sh"]
  resources: ["scaledobjects", "triggerauthentications"]
  verbs: ["get", "list", "watch", "create", "update", "delete"]
{{- end }}
{{- end }}

{{/*
The Lease of leader election, in the release namespace. JOSDK checks for create, update and get before it starts
(SelfSubjectRulesReview); fabric8's LeaseLock gets, creates and patches. Create cannot be limited by name.
*/}}
{{- define "baton.operator.leaderElectionRules" -}}
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["create"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  resourceNames: [{{ include "baton.operator.leaseName" . | quote }}]
  verbs: ["get", "update", "patch"]
{{- end }}

{{/*
The runtime's broker credentials Secret the operator keeps in the release namespace; only needed as a Role of its
own when the operator's secrets access is limited to watched namespaces.
*/}}
{{/* The operator's grants on the runtime's API token Secret (RuntimeApiTokens): create it, read it, add a missing key. */}}
{{- define "baton.operator.apiTokensRules" -}}
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["create"]
- apiGroups: [""]
  resources: ["secrets"]
  resourceNames: [{{ include "baton.runtimeApiSecretName" . | quote }}]
  verbs: ["get", "update"]
{{- end }}

{{- define "baton.operator.runtimeCredentialsRules" -}}
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["create"]
- apiGroups: [""]
  resources: ["secrets"]
  resourceNames: [{{ include "baton.runtimeRabbitmqSecretName" . | quote }}]
  verbs: ["get", "update"]
{{- end }}

{{/*
Where it watches, the runtime only reads: Workflow definitions (informer, plus a get for one it has not seen yet) and
WorkerServices (informer: their spec.paused); what Kubernetes auth adds, cluster-wide, is baton.runtime.authRules.
*/}}
{{- define "baton.runtime.rules" -}}
- apiGroups: ["baton.dev"]
  resources: ["workflows", "workerservices"]
  verbs: ["get", "list", "watch"]
{{- end }}

{{/*
With runtime.auth.mode=kubernetes, besides system:auth-delegator's create on tokenreviews and subjectaccessreviews:
the runtime lists WorkerServices in every namespace to find the one that holds a service's name, whose namespace
RBAC is asked about for that service's dead letters (http.auth.RuntimeTargets).
*/}}
{{- define "baton.runtime.authRules" -}}
- apiGroups: ["baton.dev"]
  resources: ["workerservices"]
  verbs: ["list"]
{{- end }}

{{/*
With runtime.auth.mode=kubernetes: what the runtime asks RBAC about the operator's token when the operator reads
/api/v1/counts and /api/v1/routes, list on instances in every namespace. The project's InstanceRoles.operatorReader
(a chart test compares them).
*/}}
{{- define "baton.operator.runtimeReaderRules" -}}
- apiGroups: ["baton.dev"]
  resources: ["workflows/instances"]
  verbs: ["list"]
{{- end }}

{{/* Shared pod-level bits: the /tmp emptyDir; call with (dict "size" "64Mi"). */}}
{{- define "baton.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ .size }}
{{- end }}

{{/*
A Role or ClusterRole and its binding to one ServiceAccount. Call with a dict: root, kind (Role|ClusterRole),
namespace (Role only), name, component, serviceAccount, rules (YAML text).
*/}}
{{- define "baton.rbac" -}}
{{- $binding := ternary "ClusterRoleBinding" "RoleBinding" (eq .kind "ClusterRole") }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: {{ .kind }}
metadata:
  name: {{ .name }}
  {{- if .namespace }}
  namespace: {{ .namespace }}
  {{- end }}
  labels:
    {{- include "baton.componentLabels" (dict "root" .root "component" .component) | nindent 4 }}
rules:
  {{- .rules | nindent 2 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: {{ $binding }}
metadata:
  name: {{ .name }}
  {{- if .namespace }}
  namespace: {{ .namespace }}
  {{- end }}
  labels:
    {{- include "baton.componentLabels" (dict "root" .root "component" .component) | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: {{ .kind }}
  name: {{ .name }}
subjects:
  - kind: ServiceAccount
    name: {{ .serviceAccount }}
    namespace: {{ .root.Release.Namespace }}
{{- end }}

{{/*
Pod-level settings both Deployments share: pull secrets, priority, pod security context and scheduling. Call with
(dict "root" $ "values" .Values.operator "component" "operator"); renders at the indentation of the pod spec's fields.
*/}}
{{- define "baton.podSettings" -}}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
securityContext:
  {{- toYaml .values.podSecurityContext | nindent 2 }}
{{- with .values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- range . }}
  {{- /* A constraint without a labelSelector counts this component's pods: its selector labels. */}}
  {{- $constraint := . }}
  {{- if not (hasKey . "labelSelector") }}
  {{- $constraint = merge (dict "labelSelector" (dict "matchLabels" (include "baton.selectorLabels" (dict "root" $.root "component" $.component) | fromYaml))) . }}
  {{- end }}
  - {{ toYaml $constraint | nindent 4 | trim }}
  {{- end }}
{{- end }}
{{- end }}

{{/*
CA certificates the pods trust, each from a Secret's ca.crt: the broker's (rabbitmq.tls.caSecret; both components, file
named by BATON_RABBITMQ_CA_FILE: the operator's management API calls, the runtime's amqps:// connections) and the
database's (runtime.database.caSecret; the runtime, file named by the JDBC URL's sslrootcert). Call the mount and the
volume with (dict "name" "broker-ca" "secret" .Values.rabbitmq.tls.caSecret); both render nothing without a secret.
*/}}
{{- define "baton.caDir" -}}/etc/baton/{{ . }}{{- end }}

{{- define "baton.caMount" -}}
{{- if .secret }}
- name: {{ .name }}
  mountPath: {{ include "baton.caDir" .name }}
  readOnly: true
{{- end }}
{{- end }}

{{- define "baton.caVolume" -}}
{{- if .secret }}
- name: {{ .name }}
  secret:
    secretName: {{ .secret | quote }}
    items:
      - key: ca.crt
        path: ca.crt
{{- end }}
{{- end }}

{{- define "baton.brokerCaEnv" -}}
{{- if .Values.rabbitmq.tls.caSecret }}
- name: BATON_RABBITMQ_CA_FILE
  value: {{ printf "%s/ca.crt" (include "baton.caDir" "broker-ca") | quote }}
{{- end }}
{{- end }}

{{/*
The runtime's JDBC URL: runtime.database.url, and with runtime.database.caSecret the driver's sslrootcert pointing at
the mounted CA, plus sslmode=verify-full unless the URL chooses its own sslmode.
*/}}
{{- define "baton.databaseUrl" -}}
{{- $db := .Values.runtime.database }}
{{- if $db.caSecret }}
{{- if contains "sslrootcert=" $db.url }}
{{- fail "runtime.database.url names an sslrootcert and runtime.database.caSecret mounts one: keep one of the two" }}
{{- end }}
{{- $params := list (printf "sslrootcert=%s/ca.crt" (include "baton.caDir" "database-ca")) }}
{{- if not (contains "sslmode=" $db.url) }}
{{- $params = prepend $params "sslmode=verify-full" }}
{{- end }}
{{- printf "%s%s%s" $db.url (ternary "&" "?" (contains "?" $db.url)) (join "&" $params) }}
{{- else }}
{{- $db.url }}
{{- end }}
{{- end }}

{{/*
The Prometheus Operator scrape config the chart makes, as YAML: kind (ServiceMonitor or PodMonitor) and settings (its
values: namespace, labels, interval, scrapeTimeout); empty when neither is enabled. Read with fromYaml.
*/}}
{{- define "baton.monitor" -}}
{{- $sm := .Values.metrics.serviceMonitor }}
{{- $pm := .Values.metrics.podMonitor }}
{{- if and $sm.enabled $pm.enabled }}
{{- fail "metrics.serviceMonitor.enabled and metrics.podMonitor.enabled: choose one, or Prometheus scrapes every pod twice" }}
{{- else if $sm.enabled }}
{{- toYaml (dict "kind" "ServiceMonitor" "settings" $sm) }}
{{- else if $pm.enabled }}
{{- toYaml (dict "kind" "PodMonitor" "settings" $pm) }}
{{- end }}
{{- end }}
