// Package s3gw runs a real S3-compatible server (versitygw's embedgw, posix backend) inside
// the asof process, over a local folder and on 127.0.0.1 only.
//
// It is the embedded default object store of `asof dev` and `asof server`: workers in other
// processes reach it with ordinary S3 clients (aws-sdk-go-v2, path-style, static keys). Each
// top-level folder under Root is a bucket and each file an object, so the store stays
// inspectable with ls. versitygw allows one gateway per process.
//
// While a gateway runs, the process's working directory is its Root: versitygw's posix
// backend chdirs there and works with relative paths. Resolve any user-supplied relative path
// before Start; Stop restores the previous working directory.
package s3gw

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/versity/versitygw/backend/meta"
	"github.com/versity/versitygw/backend/posix"
	"github.com/versity/versitygw/debuglogger"
	"github.com/versity/versitygw/embedgw"

	"github.com/asofrag/asof/internal/loopback"
)

// healthPath answers unauthenticated readiness probes.
const healthPath = "/asof-gateway-health"

// ErrAlreadyRunning is returned when this process already runs a gateway (versitygw keeps
// package-level state, so only one may run per process).
var ErrAlreadyRunning = errors.New("s3gw: a gateway is already running in this process")

var running atomic.Bool

// Credentials are the gateway's root keys.
type Credentials struct {
	AccessKeyID     string `json:"access_key_id"`
	SecretAccessKey string `json:"secret_access_key"`
}

// Options configure a gateway.
type Options struct {
	// Root is the folder that holds the buckets. Required; created if missing.
	Root string
	// MetaDir holds object metadata (ETags, content types) as sidecar files; default
	// "meta-<base of Root>" beside Root (versitygw refuses a folder whose path starts with
	// Root's). Sidecar files work on every file system, unlike extended attributes.
	MetaDir string
	// Port to listen on (default 7070; -1 picks a free port).
	Port int
	// Credentials are the root keys; required (see LoadOrCreateCredentials).
	Credentials Credentials
	// Region reported to clients (default us-east-1).
	Region string
	// Buckets are created at start if they do not exist.
	Buckets []string
	// Debug turns on versitygw's request log (a summary line per request, and its debug
	// logger's request and response details with secrets masked). versitygw writes both to
	// standard output.
	Debug bool
}

// Gateway is a running embedded S3 server.
type Gateway struct {
	endpoint string
	creds    Credentials
	region   string
	cancel   context.CancelFunc
	done     chan error
	cwd      string // working directory before Start, restored by Stop
}

// Start runs the gateway in the background and returns once it answers HTTP.
func Start(ctx context.Context, opts Options) (*Gateway, error) {
	if opts.Root == "" {
		return nil, errors.New("s3gw: Root is required")
	}
	if opts.Credentials.AccessKeyID == "" || opts.Credentials.SecretAccessKey == "" {
		return nil, errors.New("s3gw: credentials are required")
	}
	// versitygw resolves paths against its own root: hand it absolute ones.
	var err error
	if opts.Root, err = filepath.Abs(opts.Root); err != nil {
		return nil, fmt.Errorf("s3gw: %w", err)
	}
	if opts.MetaDir == "" {
		root := filepath.Clean(opts.Root)
		opts.MetaDir = filepath.Join(filepath.Dir(root), "meta-"+filepath.Base(root))
	}
	if opts.MetaDir, err = filepath.Abs(opts.MetaDir); err != nil {
		return nil, fmt.Errorf("s3gw: %w", err)
	}
	if opts.Region == "" {
		opts.Region = "us-east-1"
	}
	port, err := loopback.Resolve(opts.Port, 7070)
	if err != nil {
		return nil, fmt.Errorf("s3gw: port %d is taken (another asof?): %w", opts.Port, err)
	}
	addr := loopback.Addr(port)
	for _, dir := range []string{opts.Root, opts.MetaDir} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("s3gw: %w", err)
		}
	}
	for _, b := range opts.Buckets {
		// A bucket of the posix backend is a folder under Root.
		if err := os.MkdirAll(filepath.Join(opts.Root, b), 0o700); err != nil {
			return nil, fmt.Errorf("s3gw: create bucket %s: %w", b, err)
		}
	}
	if !running.CompareAndSwap(false, true) {
		return nil, ErrAlreadyRunning
	}
	cwd, err := os.Getwd()
	if err != nil {
		running.Store(false)
		return nil, fmt.Errorf("s3gw: %w", err)
	}
	keep := notNoise
	if opts.Debug {
		keep = func(string) bool { return true }
	}
	restoreStdout := quietStdout(keep)
	defer restoreStdout()
	sc, err := meta.NewSideCar(opts.MetaDir)
	if err != nil {
		running.Store(false)
		return nil, fmt.Errorf("s3gw: metadata dir %s: %w", opts.MetaDir, err)
	}
	be, err := posix.New(opts.Root, sc, posix.PosixOpts{SideCarDir: opts.MetaDir, NewDirPerm: 0o700, Concurrency: 256})
	if err != nil {
		_ = os.Chdir(cwd)
		running.Store(false)
		return nil, fmt.Errorf("s3gw: posix backend on %s: %w", opts.Root, err)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	g := &Gateway{endpoint: "http://" + addr, creds: opts.Credentials, region: opts.Region, cancel: cancel, done: make(chan error, 1), cwd: cwd}
	go func() {
		defer running.Store(false)
		g.done <- embedgw.RunVersityGW(runCtx, be, &embedgw.Config{
			RootUserAccess:    opts.Credentials.AccessKeyID,
			RootUserSecret:    opts.Credentials.SecretAccessKey,
			Region:            opts.Region,
			Ports:             []string{addr},
			MaxConnections:    1024,
			MaxRequests:       512,
			MultipartMaxParts: 10000,
			HealthPath:        healthPath,
			Quiet:             !opts.Debug,
			LogLevel:          debugLevel(opts.Debug),
			KeepAlive:         false,
		})
	}()
	if err := loopback.WaitHTTP(ctx, g.endpoint+healthPath, 20*time.Second, g.done); err != nil {
		err = fmt.Errorf("s3gw: %w", err)
		cancel()
		<-g.done
		_ = os.Chdir(cwd)
		return nil, err
	}
	return g, nil
}

// Endpoint is the gateway's base URL, e.g. http://127.0.0.1:7070.
func (g *Gateway) Endpoint() string { return g.endpoint }

// Credentials are the root keys clients sign with.
func (g *Gateway) Credentials() Credentials { return g.creds }

// Region is the region clients must sign for.
func (g *Gateway) Region() string { return g.region }

// Stop shuts the gateway down, waits for it and restores the working directory.
func (g *Gateway) Stop() error {
	g.cancel()
	err := <-g.done
	if cerr := os.Chdir(g.cwd); cerr != nil && err == nil {
		err = fmt.Errorf("s3gw: restore working directory: %w", cerr)
	}
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// LoadOrCreateCredentials reads root keys from path, or generates random ones and writes them
// there (mode 0600) on first use, so a data dir keeps its keys across restarts.
func LoadOrCreateCredentials(path string) (Credentials, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		var c Credentials
		if err := json.Unmarshal(data, &c); err != nil || c.AccessKeyID == "" || c.SecretAccessKey == "" {
			return Credentials{}, fmt.Errorf("s3gw: credentials file %s is damaged (delete it to generate new keys): %v", path, err)
		}
		return c, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return Credentials{}, fmt.Errorf("s3gw: read credentials: %w", err)
	}
	c := Credentials{AccessKeyID: "asof" + randomHex(8), SecretAccessKey: randomHex(20)}
	data, _ = json.MarshalIndent(c, "", "  ")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return Credentials{}, fmt.Errorf("s3gw: %w", err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return Credentials{}, fmt.Errorf("s3gw: write credentials: %w", err)
	}
	return c, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return hex.EncodeToString(b)
}

// debugLevel is versitygw's debug logger level for Options.Debug.
func debugLevel(on bool) debuglogger.Level {
	if on {
		return debuglogger.LevelDebug
	}
	return debuglogger.LevelSilent
}
