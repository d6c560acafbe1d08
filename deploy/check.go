// Package deploy checks asof's deployment files (Dockerfile, compose.yaml, the Kubernetes
// manifests under k8s/) against the code they deploy: the task queues, the config file's keys,
// the environment variables that carry secrets, the Makefile's build targets. It is its own
// module so that the compose and Kubernetes libraries it parses them with stay out of asof's
// go.mod; `make deploy-check` runs its test.
package deploy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/yaml"

	"github.com/asofrag/asof/internal/config"
	"github.com/asofrag/asof/internal/digest"
	"github.com/asofrag/asof/internal/models"
)

// Files is a set of files by slash-separated path relative to the repository root.
type Files map[string][]byte

// Paths of the deployment files, relative to the repository root.
const (
	DockerfilePath   = "deploy/Dockerfile"
	DockerignorePath = "deploy/Dockerfile.dockerignore"
	ComposePath      = "deploy/compose.yaml"
	K8sDir           = "deploy/k8s"
)

// ReadFiles reads every deployment file, and the repository files they are checked against,
// from the repository at root.
func ReadFiles(root string) (Files, error) {
	fs := Files{}
	add := func(rel string) error {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		fs[rel] = data
		return nil
	}
	for _, rel := range []string{DockerfilePath, DockerignorePath, ComposePath, "deploy/asof.yaml", "Makefile", "go.mod"} {
		if err := add(rel); err != nil {
			return nil, err
		}
	}
	err := filepath.WalkDir(filepath.Join(root, K8sDir), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		return add(filepath.ToSlash(rel))
	})
	return fs, err
}

// goModVersion returns the go line of go.mod, or the version it requires of module mod.
func goModVersion(gomod []byte, mod string) string {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case mod == "go" && len(f) == 2 && f[0] == "go":
			return f[1]
		case len(f) >= 2 && f[0] == mod:
			return strings.TrimPrefix(f[1], "v")
		case len(f) >= 3 && f[0] == "require" && f[1] == mod:
			return strings.TrimPrefix(f[2], "v")
		}
	}
	return ""
}

// loadConfig parses an asof config file the way `asof --config` does (defaults, then the file,
// unknown keys rejected) and validates it.
func loadConfig(name string, data []byte) (config.Config, error) {
	dir, err := os.MkdirTemp("", "asof-deploy-")
	if err != nil {
		return config.Config{}, err
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "asof.yaml")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		return config.Config{}, err
	}
	c := config.Default()
	if err := c.LoadFile(p); err != nil {
		return c, fmt.Errorf("%s: %w", name, err)
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}

// secretNames lists the environment variables a config's secrets are read from: the S3 keys
// (ASOF_S3_*) and the variables the *_api_key_env keys name, for the parts that are on.
func secretNames(c config.Config) (s3 []string, llm []string, other []string) {
	s3 = []string{"ASOF_S3_ACCESS_KEY_ID", "ASOF_S3_SECRET_ACCESS_KEY"}
	llm = []string{c.LLM.APIKeyEnv}
	if c.Embed.Remote() && c.Embed.APIKeyEnv != "" {
		other = append(other, c.Embed.APIKeyEnv)
	}
	if c.Rerank.Enabled() && !c.Rerank.Local() && c.Rerank.APIKeyEnv != "" {
		other = append(other, c.Rerank.APIKeyEnv)
	}
	return s3, llm, other
}

// checkConfigFile holds a deployment's config file to what a deployment needs: external
// Temporal and store, no secret values, and the key names of the secrets given.
func checkConfigFile(name string, c config.Config) []error {
	var errs []error
	if c.Temporal.Embedded() {
		errs = append(errs, fmt.Errorf("%s: temporal.address is empty: workers need an external Temporal", name))
	}
	if c.Store.Embedded() || !strings.HasPrefix(c.Store.URL, "s3://") {
		errs = append(errs, fmt.Errorf("%s: store.url %q: workers on several machines need an s3:// store", name, c.Store.URL))
	}
	if c.Store.AccessKeyID != "" || c.Store.SecretAccessKey != "" {
		errs = append(errs, fmt.Errorf("%s: store.access_key_id / secret_access_key hold values: S3 keys belong in ASOF_S3_* from a secret", name))
	}
	if c.LLM.APIKeyEnv == "" {
		errs = append(errs, fmt.Errorf("%s: llm.api_key_env is empty: name the variable the LLM key is read from", name))
	}
	if !slices.Contains(models.KnownIDs(), c.Embed.Model) {
		errs = append(errs, fmt.Errorf("%s: embed.model %q is not a catalogue model the image can pull (%s)", name, c.Embed.Model, strings.Join(models.KnownIDs(), ", ")))
	}
	return errs
}

// workerQueue returns the task queue a worker's arguments poll, or "" when args do not start
// a worker on exactly one known queue.
func workerQueue(args []string) (string, error) {
	if len(args) != 3 || args[0] != "worker" || args[1] != "--task-queues" {
		return "", fmt.Errorf("args %q: want [worker --task-queues QUEUE]", args)
	}
	if !slices.Contains(config.AllQueues, args[2]) {
		return "", fmt.Errorf("args %q: unknown task queue %q (known: %s)", args, args[2], strings.Join(config.AllQueues, ", "))
	}
	return args[2], nil
}

// checkQueues reports a queue of config.AllQueues served by no worker, or by two.
func checkQueues(where string, served map[string][]string) []error {
	var errs []error
	for _, q := range config.AllQueues {
		switch n := len(served[q]); {
		case n == 0:
			errs = append(errs, fmt.Errorf("%s: no worker polls task queue %s", where, q))
		case n > 1:
			errs = append(errs, fmt.Errorf("%s: task queue %s is polled by %v: one worker kind per queue", where, q, served[q]))
		}
	}
	return errs
}

// knownEnv reports whether asof reads the ASOF_* variable name.
func knownEnv(name string) bool {
	if name == "ASOF_CONFIG" {
		return true
	}
	for _, e := range config.EnvVars() {
		if e.Name == name {
			return true
		}
	}
	return false
}

// CheckCompose loads compose.yaml with compose-go (interpolation and the compose schema, as
// `docker compose config` does) and checks it against asof: one worker service per task
// queue, several embed replicas, healthchecks, the index job's profile, the mounted config
// file and where its secrets come from.
func CheckCompose(ctx context.Context, fs Files, repoRoot string) error {
	dir := filepath.Join(repoRoot, filepath.FromSlash(path.Dir(ComposePath)))
	env := types.Mapping{"MINIO_ROOT_PASSWORD": "test-password"}
	project, err := loader.LoadWithContext(ctx, types.ConfigDetails{
		WorkingDir:  dir,
		ConfigFiles: []types.ConfigFile{{Filename: filepath.Join(repoRoot, ComposePath), Content: fs[ComposePath]}},
		Environment: env,
	}, func(o *loader.Options) {
		o.SetProjectName("asof", true)
		o.Profiles = []string{"*"}
	})
	if err != nil {
		return fmt.Errorf("compose.yaml: %w", err)
	}
	var errs []error
	for _, name := range []string{"postgresql", "temporal", "minio"} {
		s, err := project.GetService(name)
		if err != nil {
			errs = append(errs, fmt.Errorf("compose.yaml: %w", err))
			continue
		}
		if s.HealthCheck == nil || len(s.HealthCheck.Test) == 0 || s.HealthCheck.Disable {
			errs = append(errs, fmt.Errorf("compose.yaml: service %s has no healthcheck", name))
		}
	}
	if s, err := project.GetService("temporal"); err == nil {
		want := "docker.io/temporalio/server:" + goModVersion(fs["go.mod"], "go.temporal.io/server")
		if s.Image != want {
			errs = append(errs, fmt.Errorf("compose.yaml: temporal image %q, want %q (the server version go.mod builds in)", s.Image, want))
		}
	}
	served := map[string][]string{}
	var cfg *config.Config
	for _, s := range project.Services {
		isAsof := s.Build != nil && s.Build.Dockerfile == DockerfilePath
		if !isAsof {
			continue
		}
		if s.Build.Context != repoRoot {
			errs = append(errs, fmt.Errorf("compose.yaml: %s builds in %s, want the repository root", s.Name, s.Build.Context))
		}
		// The config file: mounted where ASOF_CONFIG says, and valid.
		cfgPath := s.Environment["ASOF_CONFIG"]
		if cfgPath == nil {
			errs = append(errs, fmt.Errorf("compose.yaml: %s does not set ASOF_CONFIG", s.Name))
			continue
		}
		mounted := false
		for _, v := range s.Volumes {
			if v.Target != *cfgPath {
				continue
			}
			mounted = true
			rel, err := filepath.Rel(repoRoot, v.Source)
			data, ok := fs[filepath.ToSlash(rel)]
			if err != nil || !ok {
				errs = append(errs, fmt.Errorf("compose.yaml: %s mounts %s as its config file: not a file of the repository", s.Name, v.Source))
				continue
			}
			c, err := loadConfig(filepath.ToSlash(rel), data)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			cfg = &c
		}
		if !mounted {
			errs = append(errs, fmt.Errorf("compose.yaml: %s: nothing mounted at ASOF_CONFIG=%s", s.Name, *cfgPath))
		}
		for k, v := range s.Environment {
			if strings.HasPrefix(k, "ASOF_") && !knownEnv(k) {
				errs = append(errs, fmt.Errorf("compose.yaml: %s sets %s, a variable asof does not read", s.Name, k))
			}
			if v == nil && (k == "ASOF_S3_ACCESS_KEY_ID" || k == "ASOF_S3_SECRET_ACCESS_KEY") {
				errs = append(errs, fmt.Errorf("compose.yaml: %s: %s has no value", s.Name, k))
			}
		}
		for _, k := range []string{"ASOF_S3_ACCESS_KEY_ID", "ASOF_S3_SECRET_ACCESS_KEY"} {
			if _, ok := s.Environment[k]; !ok {
				errs = append(errs, fmt.Errorf("compose.yaml: %s does not get %s", s.Name, k))
			}
		}
		if slices.Contains(s.Profiles, "index") {
			if len(s.Command) == 0 || s.Command[0] != "index" {
				errs = append(errs, fmt.Errorf("compose.yaml: %s (profile index) runs %q, want asof index", s.Name, s.Command))
			}
			continue
		}
		if len(s.Profiles) > 0 {
			continue
		}
		q, err := workerQueue(s.Command)
		if err != nil {
			errs = append(errs, fmt.Errorf("compose.yaml: %s: %w", s.Name, err))
			continue
		}
		served[q] = append(served[q], s.Name)
		if s.HealthCheck == nil || s.HealthCheck.Disable || !slices.Equal([]string(s.HealthCheck.Test), []string{"CMD", "asof", "ping"}) {
			errs = append(errs, fmt.Errorf("compose.yaml: worker %s: healthcheck must run [CMD asof ping]", s.Name))
		}
		for _, dep := range []string{"temporal-namespace", "minio-bucket"} {
			if d, ok := s.DependsOn[dep]; !ok || d.Condition != types.ServiceConditionCompletedSuccessfully {
				errs = append(errs, fmt.Errorf("compose.yaml: worker %s must wait for %s to complete", s.Name, dep))
			}
		}
		if q == config.QueueEmbed && (s.Deploy == nil || s.Deploy.Replicas == nil || *s.Deploy.Replicas < 2) {
			errs = append(errs, fmt.Errorf("compose.yaml: %s: deploy.replicas must default to 2 or more (embedding scales out)", s.Name))
		}
		if q == config.QueueLLM && cfg != nil {
			if _, ok := s.Environment[cfg.LLM.APIKeyEnv]; !ok {
				errs = append(errs, fmt.Errorf("compose.yaml: %s does not get %s, the variable llm.api_key_env names", s.Name, cfg.LLM.APIKeyEnv))
			}
		}
	}
	errs = append(errs, checkQueues("compose.yaml", served)...)
	hasIndex := false
	for _, s := range project.Services {
		hasIndex = hasIndex || slices.Contains(s.Profiles, "index")
	}
	if !hasIndex {
		errs = append(errs, errors.New("compose.yaml: no one-shot index service (profile index)"))
	}
	if cfg == nil {
		return errors.Join(append(errs, errors.New("compose.yaml: no asof service mounts a valid config file"))...)
	}
	errs = append(errs, checkConfigFile("deploy/asof.yaml", *cfg)...)
	// The config's addresses name services of this file, and the bucket is the one created.
	if host, _, err := net.SplitHostPort(cfg.Temporal.Address); err != nil || !hasService(project, host) {
		errs = append(errs, fmt.Errorf("deploy/asof.yaml: temporal.address %q is not a service of compose.yaml", cfg.Temporal.Address))
	}
	if u, err := url.Parse(cfg.Store.Endpoint); err != nil || !hasService(project, u.Hostname()) {
		errs = append(errs, fmt.Errorf("deploy/asof.yaml: store.endpoint %q is not a service of compose.yaml", cfg.Store.Endpoint))
	}
	if u, err := url.Parse(cfg.Store.URL); err == nil {
		created := false
		for _, s := range project.Services {
			if strings.Contains(strings.Join(s.Command, " "), "mc mb --ignore-existing local/"+u.Host) {
				created = true
			}
		}
		if !created {
			errs = append(errs, fmt.Errorf("compose.yaml: no service creates bucket %q (store.url)", u.Host))
		}
	}
	return errors.Join(errs...)
}

func hasService(p *types.Project, name string) bool {
	_, err := p.GetService(name)
	return err == nil
}

// kustomization is the part of kustomization.yaml the check reads; strict decoding rejects
// keys it does not list, so a typo there fails too.
type kustomization struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Labels     []struct {
		Pairs map[string]string `json:"pairs"`
	} `json:"labels"`
	Resources []string `json:"resources"`
	Images    []struct {
		Name    string `json:"name"`
		NewName string `json:"newName"`
		NewTag  string `json:"newTag"`
	} `json:"images"`
}

var k8sScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// splitDocs splits a multi-document YAML file at its --- lines.
func splitDocs(data []byte) [][]byte {
	var docs [][]byte
	for _, d := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
		if strings.TrimSpace(regexp.MustCompile(`(?m)^\s*#.*$`).ReplaceAllString(d, "")) != "" {
			docs = append(docs, []byte(d))
		}
	}
	return docs
}

// CheckKubernetes decodes every manifest under k8s/ strictly with the Kubernetes API types
// (an unknown or duplicate field is an error) and checks them against asof: one Deployment
// per task queue running `asof worker`, readiness probes, resource requests and limits, the
// config file in a ConfigMap, secrets by the names the config gives, and a kustomization that
// lists every file.
func CheckKubernetes(fs Files) error {
	strict := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, k8sScheme, k8sScheme, kjson.SerializerOptions{Yaml: true, Strict: true})
	var errs []error
	var (
		deployments []*appsv1.Deployment
		jobs        []*batchv1.Job
		configMaps  = map[string]*corev1.ConfigMap{}
		secrets     = map[string]*corev1.Secret{}
		kust        *kustomization
		base        []string
	)
	names := make([]string, 0, len(fs))
	for name := range fs {
		if strings.HasPrefix(name, K8sDir+"/") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		rel := strings.TrimPrefix(name, K8sDir+"/")
		if rel == "kustomization.yaml" {
			var k kustomization
			if err := yaml.UnmarshalStrict(fs[name], &k); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
				continue
			}
			kust = &k
			continue
		}
		if !strings.Contains(rel, "/") {
			base = append(base, rel)
		}
		for i, doc := range splitDocs(fs[name]) {
			obj, _, err := strict.Decode(doc, nil, nil)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s (document %d): %w", name, i+1, err))
				continue
			}
			switch o := obj.(type) {
			case *appsv1.Deployment:
				deployments = append(deployments, o)
			case *batchv1.Job:
				jobs = append(jobs, o)
			case *corev1.ConfigMap:
				configMaps[o.Name] = o
			case *corev1.Secret:
				secrets[o.Name] = o
			case *corev1.Namespace:
			default:
				errs = append(errs, fmt.Errorf("%s: unexpected kind %T", name, obj))
			}
		}
	}
	if kust == nil {
		return errors.Join(append(errs, fmt.Errorf("%s/kustomization.yaml: missing", K8sDir))...)
	}
	listed := slices.Clone(kust.Resources)
	sort.Strings(listed)
	if !slices.Equal(listed, base) {
		errs = append(errs, fmt.Errorf("%s/kustomization.yaml: resources %v, but the folder holds %v", K8sDir, listed, base))
	}
	image := ""
	if len(kust.Images) == 1 {
		image = kust.Images[0].Name
	} else {
		errs = append(errs, fmt.Errorf("%s/kustomization.yaml: want one images entry (the asof worker image), got %d", K8sDir, len(kust.Images)))
	}

	// The config file.
	cm, ok := configMaps["asof-config"]
	var cfg config.Config
	if !ok || cm.Data["asof.yaml"] == "" {
		return errors.Join(append(errs, errors.New("k8s: no ConfigMap asof-config with key asof.yaml"))...)
	}
	cfg, err := loadConfig("ConfigMap asof-config asof.yaml", []byte(cm.Data["asof.yaml"]))
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	errs = append(errs, checkConfigFile("ConfigMap asof-config", cfg)...)
	s3Keys, llmKeys, otherKeys := secretNames(cfg)
	for name, s := range secrets {
		for k := range s.StringData {
			if strings.HasPrefix(k, "ASOF_") && !knownEnv(k) {
				errs = append(errs, fmt.Errorf("Secret %s: key %s is not a variable asof reads", name, k))
			}
			if !strings.HasPrefix(k, "ASOF_") && !slices.Contains(append(llmKeys, otherKeys...), k) {
				errs = append(errs, fmt.Errorf("Secret %s: key %s is not a name the config's *_api_key_env gives (%v)", name, k, append(llmKeys, otherKeys...)))
			}
		}
	}

	// The workers.
	served := map[string][]string{}
	for _, d := range deployments {
		where := "Deployment " + d.Name
		spec := d.Spec.Template.Spec
		if d.Spec.Selector == nil || !subset(d.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
			errs = append(errs, fmt.Errorf("%s: selector does not match the pod template's labels", where))
		}
		if len(spec.Containers) != 1 {
			errs = append(errs, fmt.Errorf("%s: want one container, got %d", where, len(spec.Containers)))
			continue
		}
		c := spec.Containers[0]
		q, err := workerQueue(c.Args)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
			continue
		}
		served[q] = append(served[q], d.Name)
		if c.Image != image {
			errs = append(errs, fmt.Errorf("%s: image %q is not the kustomization's image %q", where, c.Image, image))
		}
		errs = append(errs, checkPod(where, spec, c, configMaps, secrets)...)
		errs = append(errs, checkHealthProbes(where, c)...)
		req, lim := c.Resources.Requests, c.Resources.Limits
		if req.Cpu().IsZero() || req.Memory().IsZero() || lim.Memory().IsZero() {
			errs = append(errs, fmt.Errorf("%s: set requests.cpu, requests.memory and limits.memory", where))
		}
		if q == config.QueueEmbed {
			// BENCHMARKS.md: embedding runs cores/embed.threads model calls at once; a replica
			// sized below one call per thread wastes the rest.
			if threads := max(cfg.Embed.Threads, 1); req.Cpu().MilliValue() < int64(threads)*1000 {
				errs = append(errs, fmt.Errorf("%s: requests.cpu %s is below embed.threads %d", where, req.Cpu(), threads))
			}
			if d.Spec.Replicas == nil || *d.Spec.Replicas < 2 {
				errs = append(errs, fmt.Errorf("%s: want 2 or more replicas (embedding scales out)", where))
			}
		}
		need := s3Keys
		if q == config.QueueLLM {
			need = append(slices.Clone(need), llmKeys...)
		}
		if q == config.QueueEmbed || q == config.QueueDefault {
			need = append(slices.Clone(need), otherKeys...)
		}
		for _, k := range need {
			if !envFromSecrets(c, secrets, k) {
				errs = append(errs, fmt.Errorf("%s: no secret gives it %s", where, k))
			}
		}
	}
	errs = append(errs, checkQueues("k8s", served)...)

	// The one-shot jobs: asof client commands with the same config.
	for _, j := range jobs {
		where := "Job " + j.Name
		spec := j.Spec.Template.Spec
		if len(spec.Containers) != 1 {
			errs = append(errs, fmt.Errorf("%s: want one container", where))
			continue
		}
		c := spec.Containers[0]
		if len(c.Args) == 0 || !slices.Contains([]string{"index", "schedule", "digest", "eval", "ask"}, c.Args[0]) {
			errs = append(errs, fmt.Errorf("%s: args %q do not run an asof client command", where, c.Args))
		}
		if spec.RestartPolicy != corev1.RestartPolicyNever && spec.RestartPolicy != corev1.RestartPolicyOnFailure {
			errs = append(errs, fmt.Errorf("%s: restartPolicy %q", where, spec.RestartPolicy))
		}
		errs = append(errs, checkPod(where, spec, c, configMaps, secrets)...)
		if slices.Contains(c.Args, "--topics") {
			i := slices.Index(c.Args, "--topics")
			data, err := mountedFile(spec, c, configMaps, c.Args[i+1])
			if err == nil {
				_, err = digest.ParseTopics(strings.NewReader(data))
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: --topics %s: %w", where, c.Args[i+1], err))
			}
		}
	}
	if !slices.ContainsFunc(jobs, func(j *batchv1.Job) bool {
		c := j.Spec.Template.Spec.Containers
		return len(c) == 1 && len(c[0].Args) > 0 && c[0].Args[0] == "index"
	}) {
		errs = append(errs, errors.New("k8s: no Job runs asof index"))
	}
	return errors.Join(errs...)
}

// checkHealthProbes holds a worker to asof's /healthz (internal/metrics): served where
// ASOF_METRICS_ADDR puts it, on a named container port, and probed for startup, readiness and
// liveness.
func checkHealthProbes(where string, c corev1.Container) []error {
	var errs []error
	addr := ""
	for _, e := range c.Env {
		if e.Name == "ASOF_METRICS_ADDR" {
			addr = e.Value
		}
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return []error{fmt.Errorf("%s: ASOF_METRICS_ADDR %q: want host:port ($(POD_IP):9464): /healthz and /metrics are off without it", where, addr)}
	}
	named := ""
	for _, p := range c.Ports {
		if fmt.Sprint(p.ContainerPort) == port {
			named = p.Name
		}
	}
	if named == "" {
		errs = append(errs, fmt.Errorf("%s: no container port %s (ASOF_METRICS_ADDR)", where, port))
	}
	for kind, p := range map[string]*corev1.Probe{"startupProbe": c.StartupProbe, "readinessProbe": c.ReadinessProbe, "livenessProbe": c.LivenessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" || (p.HTTPGet.Port.String() != named && p.HTTPGet.Port.String() != port) {
			errs = append(errs, fmt.Errorf("%s: %s must GET /healthz on the metrics port %s", where, kind, port))
		}
	}
	return errs
}

func subset(sel, labels map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// envFromSecrets reports whether container c gets variable name from a Secret that holds it.
func envFromSecrets(c corev1.Container, secrets map[string]*corev1.Secret, name string) bool {
	for _, ef := range c.EnvFrom {
		if ef.SecretRef == nil || ef.Prefix != "" {
			continue
		}
		if s, ok := secrets[ef.SecretRef.Name]; ok {
			if _, ok := s.StringData[name]; ok {
				return true
			}
		}
	}
	for _, e := range c.Env {
		if e.Name == name && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			s, ok := secrets[e.ValueFrom.SecretKeyRef.Name]
			if _, has := s.StringData[e.ValueFrom.SecretKeyRef.Key]; ok && has {
				return true
			}
		}
	}
	return false
}

// mountedFile returns the ConfigMap entry container c sees at file path p.
func mountedFile(spec corev1.PodSpec, c corev1.Container, cms map[string]*corev1.ConfigMap, p string) (string, error) {
	for _, m := range c.VolumeMounts {
		if path.Dir(p) != path.Clean(m.MountPath) {
			continue
		}
		for _, v := range spec.Volumes {
			if v.Name == m.Name && v.ConfigMap != nil {
				cm, ok := cms[v.ConfigMap.Name]
				if !ok {
					return "", fmt.Errorf("ConfigMap %s is not defined", v.ConfigMap.Name)
				}
				data, ok := cm.Data[path.Base(p)]
				if !ok {
					return "", fmt.Errorf("ConfigMap %s has no key %s", cm.Name, path.Base(p))
				}
				return data, nil
			}
		}
	}
	return "", fmt.Errorf("no ConfigMap is mounted at %s", path.Dir(p))
}

// checkPod checks what workers and jobs share: the config file where ASOF_CONFIG points, the
// Secrets they name exist, volumes exist, and a non-root, read-only container.
func checkPod(where string, spec corev1.PodSpec, c corev1.Container, cms map[string]*corev1.ConfigMap, secrets map[string]*corev1.Secret) []error {
	var errs []error
	cfgPath := ""
	for _, e := range c.Env {
		if e.Name == "ASOF_CONFIG" {
			cfgPath = e.Value
		}
		if strings.HasPrefix(e.Name, "ASOF_") && !knownEnv(e.Name) {
			errs = append(errs, fmt.Errorf("%s: env %s is not a variable asof reads", where, e.Name))
		}
	}
	if cfgPath == "" {
		errs = append(errs, fmt.Errorf("%s: ASOF_CONFIG is not set", where))
	} else if data, err := mountedFile(spec, c, cms, cfgPath); err != nil {
		errs = append(errs, fmt.Errorf("%s: ASOF_CONFIG=%s: %w", where, cfgPath, err))
	} else if data != cms["asof-config"].Data["asof.yaml"] {
		errs = append(errs, fmt.Errorf("%s: ASOF_CONFIG=%s is not the asof-config ConfigMap's asof.yaml", where, cfgPath))
	}
	for _, ef := range c.EnvFrom {
		if ef.SecretRef != nil {
			if _, ok := secrets[ef.SecretRef.Name]; !ok {
				errs = append(errs, fmt.Errorf("%s: envFrom Secret %s is not defined", where, ef.SecretRef.Name))
			}
		}
	}
	vols := map[string]bool{}
	for _, v := range spec.Volumes {
		vols[v.Name] = true
	}
	for _, m := range c.VolumeMounts {
		if !vols[m.Name] {
			errs = append(errs, fmt.Errorf("%s: volumeMount %s names no volume", where, m.Name))
		}
	}
	if sc := spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
		errs = append(errs, fmt.Errorf("%s: the pod must run as a non-root user (the image's uid 10001)", where))
	}
	if sc := c.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		errs = append(errs, fmt.Errorf("%s: the container's root filesystem should be read-only (asof writes under its data dir and /tmp)", where))
	}
	return errs
}

// dockerInstr is one Dockerfile instruction, continuation lines joined.
type dockerInstr struct {
	line int
	cmd  string // upper case
	args string
}

// parseDockerfile splits a Dockerfile into instructions (comments dropped, backslash
// continuations joined). It is no full parser; the build itself is the real check
// (docs/deploy.md), this catches paths and commands that drift from the repository.
func parseDockerfile(data []byte) []dockerInstr {
	var out []dockerInstr
	var cur *dockerInstr
	for i, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if cur == nil && (t == "" || strings.HasPrefix(t, "#")) {
			continue
		}
		if cur != nil && strings.HasPrefix(t, "#") {
			continue
		}
		cont := strings.HasSuffix(t, "\\")
		t = strings.TrimSuffix(t, "\\")
		if cur == nil {
			cmd, args, _ := strings.Cut(t, " ")
			cur = &dockerInstr{line: i + 1, cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)}
		} else {
			cur.args += " " + strings.TrimSpace(t)
		}
		if !cont {
			out = append(out, *cur)
			cur = nil
		}
	}
	return out
}

// CheckDockerfile checks the Dockerfile against the repository: the Go version is go.mod's,
// what it copies from the build context exists, the make targets and variables it uses exist
// and build what the runtime stages copy, the model it pulls is in the catalogue, the images
// run as a non-root user, and the worker image is the default (last) target.
func CheckDockerfile(fs Files, repoRoot string) error {
	var errs []error
	ins := parseDockerfile(fs[DockerfilePath])
	args := map[string]string{}
	stages := map[string]bool{}
	stage, lastStage, user := "", "", map[string]string{}
	stageMakes := map[string][]string{} // make targets each stage runs, with those of the stage it starts FROM
	makefile := string(fs["Makefile"])
	for _, in := range ins {
		at := fmt.Sprintf("%s:%d", DockerfilePath, in.line)
		f := strings.Fields(in.args)
		switch in.cmd {
		case "ARG":
			k, v, _ := strings.Cut(in.args, "=")
			args[k] = v
			if k == "MODELS" && v != "" {
				for _, id := range strings.Fields(v) {
					if !slices.Contains(models.KnownIDs(), id) {
						errs = append(errs, fmt.Errorf("%s: MODELS names %q, not a catalogue model (%s)", at, id, strings.Join(models.KnownIDs(), ", ")))
					}
				}
			}
		case "FROM":
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				stage = f[2]
				stageMakes[stage] = slices.Clone(stageMakes[f[0]])
				stages[stage] = true
				lastStage = stage
			}
			if strings.HasPrefix(f[0], "golang:") && args["GO_VERSION"] != goModVersion(fs["go.mod"], "go") {
				errs = append(errs, fmt.Errorf("%s: GO_VERSION %q, but go.mod says go %s", at, args["GO_VERSION"], goModVersion(fs["go.mod"], "go")))
			}
			if !strings.HasPrefix(f[0], "${") && !strings.Contains(f[0], ":") && !stages[f[0]] {
				errs = append(errs, fmt.Errorf("%s: FROM %s: no such stage and no image tag", at, f[0]))
			}
		case "USER":
			user[stage] = in.args
		case "COPY":
			from := ""
			var srcs []string
			for _, a := range f[:len(f)-1] {
				if strings.HasPrefix(a, "--from=") {
					from = strings.TrimPrefix(a, "--from=")
				} else if !strings.HasPrefix(a, "--") {
					srcs = append(srcs, a)
				}
			}
			for _, src := range srcs {
				switch {
				case from == "":
					if src == "." {
						continue
					}
					if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(src))); err != nil {
						errs = append(errs, fmt.Errorf("%s: COPY %s: not in the repository", at, src))
					}
				case strings.HasPrefix(src, "/src/bin/"):
					// The stage it comes from runs the make target that builds that binary.
					target := regexp.MustCompile(`(?m)^([a-z-]+):[^\n]*\n(?:\t[^\n]*\n)*?\t[^\n]*-o \$\(BIN\)/` + regexp.QuoteMeta(path.Base(src)) + ` `).FindStringSubmatch(makefile)
					switch {
					case target == nil:
						errs = append(errs, fmt.Errorf("%s: COPY %s: no Makefile target builds bin/%s", at, src, path.Base(src)))
					case !slices.Contains(stageMakes[from], target[1]):
						errs = append(errs, fmt.Errorf("%s: COPY --from=%s %s: that stage does not run make %s", at, from, src, target[1]))
					}
				}
			}
		case "RUN":
			for _, m := range regexp.MustCompile(`(?:^|&&\s*)(scripts/\S+\.sh)`).FindAllStringSubmatch(in.args, -1) {
				if st, err := os.Stat(filepath.Join(repoRoot, m[1])); err != nil || st.Mode()&0o111 == 0 {
					errs = append(errs, fmt.Errorf("%s: RUN %s: no such executable in the repository", at, m[1]))
				}
			}
			if m := regexp.MustCompile(`\bmake ((?:[a-z-]+ )+)([A-Z_]+=\S+)?`).FindStringSubmatch(in.args); m != nil {
				for _, target := range strings.Fields(m[1]) {
					stageMakes[stage] = append(stageMakes[stage], target)
					if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(target) + `:`).MatchString(makefile) {
						errs = append(errs, fmt.Errorf("%s: make %s: no such Makefile target", at, target))
					}
				}
				if v, _, _ := strings.Cut(m[2], "="); v != "" && !regexp.MustCompile(`(?m)^`+v+`\s*:?=`).MatchString(makefile) {
					errs = append(errs, fmt.Errorf("%s: make %s: the Makefile has no variable %s", at, m[2], v))
				}
			}
		}
	}
	for _, s := range []string{"builder", "full", "worker"} {
		if !stages[s] {
			errs = append(errs, fmt.Errorf("%s: no stage %q", DockerfilePath, s))
		}
	}
	if lastStage != "worker" {
		errs = append(errs, fmt.Errorf("%s: the last stage (the default target) is %q, want worker", DockerfilePath, lastStage))
	}
	if u := user["runtime"]; u == "" || strings.HasPrefix(u, "0") || strings.HasPrefix(u, "root") {
		errs = append(errs, fmt.Errorf("%s: the runtime stage must switch to a non-root USER (got %q)", DockerfilePath, u))
	}
	// The lean build the worker image copies is built with the lean tag and ORT when the
	// Makefile finds the libraries under ORT_LIB.
	if !strings.Contains(makefile, `-tags "lean $(GOTAGS)"`) || !strings.Contains(makefile, "GOTAGS    := ORT") {
		errs = append(errs, errors.New("Makefile: build-lean no longer builds with -tags \"lean $(GOTAGS)\" and GOTAGS ORT: update the Dockerfile and this check"))
	}
	ignore := strings.Fields(string(fs[DockerignorePath]))
	for _, p := range []string{".asof", "bin"} {
		if !slices.Contains(ignore, p) {
			errs = append(errs, fmt.Errorf("%s: does not exclude %s (local models, libraries and binaries would enter the build context)", DockerignorePath, p))
		}
	}
	return errors.Join(errs...)
}
