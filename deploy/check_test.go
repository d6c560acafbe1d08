package deploy

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// repoRoot is the repository this module sits in.
var repoRoot, _ = filepath.Abs("..")

func readFiles(t *testing.T) Files {
	t.Helper()
	fs, err := ReadFiles(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// check runs every check over fs.
func check(fs Files) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return errors.Join(CheckCompose(ctx, fs, repoRoot), CheckKubernetes(fs), CheckDockerfile(fs, repoRoot))
}

func TestDeploymentFiles(t *testing.T) {
	fs := readFiles(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := CheckCompose(ctx, fs, repoRoot); err != nil {
		t.Errorf("compose:\n%v", err)
	}
	if err := CheckKubernetes(fs); err != nil {
		t.Errorf("kubernetes:\n%v", err)
	}
	if err := CheckDockerfile(fs, repoRoot); err != nil {
		t.Errorf("Dockerfile:\n%v", err)
	}
}

// TestChecksCatchBrokenFiles breaks the real files one way at a time; each must fail with a
// message that names the fault.
func TestChecksCatchBrokenFiles(t *testing.T) {
	const (
		compose = ComposePath
		cfg     = "deploy/asof.yaml"
		kust    = K8sDir + "/kustomization.yaml"
		cm      = K8sDir + "/configmap.yaml"
		secret  = K8sDir + "/secret.yaml"
		embed   = K8sDir + "/worker-embed.yaml"
		llm     = K8sDir + "/worker-llm.yaml"
		index   = K8sDir + "/jobs/index.yaml"
		sched   = K8sDir + "/jobs/digest-schedule.yaml"
		docker  = DockerfilePath
	)
	tests := []struct {
		name      string
		file      string
		old, new  string
		wantError string
	}{
		{"compose: not valid against the compose schema", compose, "    restart: on-failure:5\n", "    restart: on-failure:5\n    restrat: always\n", "restrat"},
		{"compose: a required variable without default", compose, "${MINIO_ROOT_PASSWORD:?set MINIO_ROOT_PASSWORD}", "${MINIO_PASSWORD:?set MINIO_PASSWORD}", "MINIO_PASSWORD"},
		{"compose: a worker on an unknown queue", compose, `"--task-queues", "asof-llm"`, `"--task-queues", "asof-llms"`, `unknown task queue "asof-llms"`},
		{"compose: a queue nobody polls", compose, `"--task-queues", "asof-llm"`, `"--task-queues", "asof-embed"`, "no worker polls task queue asof-llm"},
		{"compose: one embed replica", compose, "${ASOF_EMBED_REPLICAS:-2}", "${ASOF_EMBED_REPLICAS:-1}", "deploy.replicas"},
		{"compose: a worker without healthcheck", compose, "    healthcheck: *asof-health\n\n  # LLM", "\n  # LLM", "healthcheck must run [CMD asof ping]"},
		{"compose: no index profile", compose, `profiles: ["index"]`, `profiles: ["backfill"]`, "no one-shot index service"},
		{"compose: temporal image drifts from go.mod", compose, "docker.io/temporalio/server:${TEMPORAL_VERSION:-1.32.1}", "docker.io/temporalio/server:${TEMPORAL_VERSION:-1.31.0}", "the server version go.mod builds in"},
		{"compose: a variable asof does not read", compose, "ASOF_CONFIG: /etc/asof/asof.yaml", "ASOF_CONFIG: /etc/asof/asof.yaml\n    ASOF_EMBED_THREAD: \"2\"", "ASOF_EMBED_THREAD"},
		{"compose: the LLM key not passed", compose, "      LLM_API_KEY: ${LLM_API_KEY:-}\n", "", "does not get LLM_API_KEY"},
		{"config: unknown key", cfg, "  threads: 1", "  thread: 1", "field thread not found"},
		{"config: invalid value", cfg, "log_format: json", "log_format: xml", "log_format"},
		{"config: a secret value in the file", cfg, "  region: us-east-1", "  region: us-east-1\n  secret_access_key: hunter2", "hold values"},
		{"config: temporal address not a service", cfg, "address: temporal:7233", "address: temporal-frontend:7233", "not a service of compose.yaml"},
		{"config: a model the image cannot pull", cfg, "model: e5-small-v2-q", "model: bge-m3", "not a catalogue model"},
		{"k8s: unknown field", embed, "          readinessProbe:", "          readinesProbe:", `unknown field "spec.template.spec.containers[0].readinesProbe"`},
		{"k8s: wrong type", embed, "  replicas: 2", "  replicas: two", "replicas"},
		{"k8s: file not in the kustomization", kust, "  - worker-llm.yaml\n", "", "but the folder holds"},
		{"k8s: unknown kustomization key", kust, "resources:", "resource:", "resource"},
		{"k8s: worker on an unknown queue", embed, `"--task-queues", "asof-embed"`, `"--task-queues", "embed"`, `unknown task queue "embed"`},
		{"k8s: readiness probe on another path", llm, "          readinessProbe:\n            httpGet:\n              path: /healthz", "          readinessProbe:\n            httpGet:\n              path: /ready", "readinessProbe must GET /healthz"},
		{"k8s: no liveness probe", embed, "          livenessProbe:\n            httpGet:\n              path: /healthz\n              port: metrics\n            periodSeconds: 20\n            failureThreshold: 3\n", "", "livenessProbe must GET /healthz"},
		{"k8s: metrics off", llm, "            - name: ASOF_METRICS_ADDR\n              value: $(POD_IP):9464\n", "", "/healthz and /metrics are off without it"},
		{"k8s: probe port not served", embed, "              containerPort: 9464", "              containerPort: 9090", "no container port 9464"},
		{"k8s: no memory limit", embed, "            limits:\n              memory: 2Gi\n", "", "limits.memory"},
		{"k8s: embed below one core per call", embed, `cpu: "2"`, `cpu: "500m"`, "below embed.threads"},
		{"k8s: config map invalid", cm, "      backend: ort", "      backend: onnx", "embed.backend"},
		{"k8s: secret key the config does not name", secret, "  LLM_API_KEY: change-me", "  OPENAI_API_KEY: change-me", "not a name the config's *_api_key_env gives"},
		{"k8s: llm worker without its key", llm, "            - secretRef:\n                name: asof-llm\n", "", "no secret gives it LLM_API_KEY"},
		{"k8s: config mounted elsewhere", embed, "              mountPath: /etc/asof\n", "              mountPath: /etc/asof-config\n", "no ConfigMap is mounted at /etc/asof"},
		{"k8s: runs as root", llm, "        runAsUser: 10001", "        runAsUser: 0", "non-root"},
		{"k8s: image not the kustomization's", embed, "          image: asof-worker\n", "          image: asof:latest\n", "is not the kustomization's image"},
		{"k8s: bad topics in the digest job", sched, "        mode: evolution", "        mode: sideways", "unknown mode"},
		{"k8s: job runs no asof command", index, `args: ["index",`, `args: ["indx",`, "do not run an asof client command"},
		{"Dockerfile: Go version drifts from go.mod", docker, "ARG GO_VERSION=1.26.8", "ARG GO_VERSION=1.25.0", "go.mod says go"},
		{"Dockerfile: copies a path that does not exist", docker, "COPY scripts/ort/ scripts/ort/", "COPY infra/onnx/ infra/onnx/", "COPY infra/onnx/: not in the repository"},
		{"Dockerfile: a make target that does not exist", docker, "make build-lean ORT_LIB", "make build-worker ORT_LIB", "no such Makefile target"},
		{"Dockerfile: copies a binary its stage does not build", docker, "COPY --from=build-full /src/bin/asof ", "COPY --from=build-lean /src/bin/asof ", "that stage does not run make build"},
		{"Dockerfile: a make variable that does not exist", docker, "make build ORT_LIB=", "make build ORT_DIR=", "no variable ORT_DIR"},
		{"Dockerfile: a binary no target builds", docker, "/src/bin/asof-lean /usr/local/bin/asof", "/src/bin/asof-worker /usr/local/bin/asof", "no Makefile target builds bin/asof-worker"},
		{"Dockerfile: runs as root", docker, "USER 10001:10001", "USER root", "non-root USER"},
		{"Dockerfile: unknown model", docker, "ARG MODELS=e5-small-v2-q", "ARG MODELS=e5-large", "not a catalogue model"},
		{"Dockerfile: worker not the default target", docker, "FROM runtime AS full", "FROM runtime AS fullx", `no stage "full"`},
		{"Dockerfile: setup script missing", docker, "RUN scripts/ort/setup.sh /opt/asof/ort", "RUN scripts/ort/install.sh /opt/asof/ort", "scripts/ort/install.sh: no such executable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := readFiles(t)
			if !strings.Contains(string(fs[tt.file]), tt.old) {
				t.Fatalf("%s no longer contains %q: update this case", tt.file, tt.old)
			}
			fs[tt.file] = []byte(strings.Replace(string(fs[tt.file]), tt.old, tt.new, 1))
			err := check(fs)
			if err == nil {
				t.Fatalf("the checks passed a broken %s", tt.file)
			}
			if !strings.Contains(err.Error(), tt.wantError) {
				t.Errorf("error does not mention %q:\n%v", tt.wantError, err)
			}
		})
	}
}
