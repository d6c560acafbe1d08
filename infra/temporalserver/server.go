// Package temporalserver runs a real Temporal server (go.temporal.io/server) inside the asof
// process, persisting to a SQLite file and listening on 127.0.0.1 only.
//
// Every service (frontend, history, matching, worker) is started in-process with static host
// resolution, so a restart on the same file is as fast as a first start and keeps all history.
// This is the embedded default used by `asof dev` and `asof server`; a deployment that scales
// out points workers at any Temporal cluster instead.
package temporalserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/membership/static"
	"go.temporal.io/server/common/metrics"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	"go.temporal.io/server/common/primitives"
	sqliteschema "go.temporal.io/server/schema/sqlite"
	"go.temporal.io/server/temporal"

	"github.com/asofrag/asof/internal/loopback"
)

// Host is the only interface the embedded server binds to.
const Host = loopback.Host

// DefaultNamespace is registered on every start.
const DefaultNamespace = "default"

// ErrNotReady is returned by Start when the frontend does not answer in time.
var ErrNotReady = errors.New("temporal server did not become ready")

// Options configure an embedded server. The zero value of every field has a sane default,
// except DBPath.
type Options struct {
	// DBPath is the SQLite file that holds all state. It is created, with its schema, on first
	// start. Required.
	DBPath string
	// FrontendPort is the gRPC port clients and workers dial (default 7233; -1 picks a free port).
	FrontendPort int
	// Namespaces are registered on start (DefaultNamespace is always included).
	Namespaces []string
	// LogPath receives the server's own log (JSON lines). Empty: DBPath + ".log".
	LogPath string
	// LogLevel is the server log level: debug, info, warn or error (default warn).
	LogLevel string
	// ReadyTimeout bounds how long Start waits for the frontend to answer (default 30 s).
	ReadyTimeout time.Duration
}

// Server is a running embedded Temporal server.
type Server struct {
	srv         temporal.Server
	hostPort    string
	metricsAddr string
	opts        Options
}

// Start creates the SQLite schema when the file is new, starts every Temporal service in
// this process and waits until the frontend accepts a client.
func Start(ctx context.Context, opts Options) (*Server, error) {
	if opts.DBPath == "" {
		return nil, errors.New("temporalserver: DBPath is required")
	}
	if err := os.MkdirAll(filepath.Dir(opts.DBPath), 0o700); err != nil {
		return nil, fmt.Errorf("temporalserver: create data dir: %w", err)
	}
	if opts.LogPath == "" {
		opts.LogPath = opts.DBPath + ".log"
	}
	if opts.LogLevel == "" {
		opts.LogLevel = "warn"
	}
	if opts.ReadyTimeout == 0 {
		opts.ReadyTimeout = 30 * time.Second
	}
	frontend, err := loopback.Resolve(opts.FrontendPort, 7233)
	if err != nil {
		return nil, fmt.Errorf("temporalserver: frontend port %d is taken (another asof or Temporal server?): %w", opts.FrontendPort, err)
	}
	ports := map[primitives.ServiceName]int{primitives.FrontendService: frontend}
	for _, svc := range []primitives.ServiceName{primitives.HistoryService, primitives.MatchingService, primitives.WorkerService} {
		p, err := loopback.FreePort()
		if err != nil {
			return nil, err
		}
		ports[svc] = p
	}

	sqlCfg := &config.SQL{
		PluginName:        sqliteplugin.PluginName,
		DatabaseName:      opts.DBPath,
		ConnectAttributes: map[string]string{"mode": "rwc", "_journal_mode": "wal", "_synchronous": "normal"},
	}
	if _, err := os.Stat(opts.DBPath); errors.Is(err, os.ErrNotExist) {
		if err := sqliteschema.SetupSchema(sqlCfg); err != nil {
			return nil, fmt.Errorf("temporalserver: create schema in %s: %w", opts.DBPath, err)
		}
	}
	nsNames := append([]string{DefaultNamespace}, opts.Namespaces...)
	var nss []*sqliteschema.NamespaceConfig
	seen := map[string]bool{}
	for _, name := range nsNames {
		if seen[name] {
			continue
		}
		seen[name] = true
		ns, err := sqliteschema.NewNamespaceConfig("active", name, false, nil)
		if err != nil {
			return nil, fmt.Errorf("temporalserver: namespace %s: %w", name, err)
		}
		nss = append(nss, ns)
	}
	if err := sqliteschema.CreateNamespaces(sqlCfg, nss...); err != nil {
		return nil, fmt.Errorf("temporalserver: register namespaces: %w", err)
	}
	// The database is its owner's only, as its folder is (SQLite gives its -wal and -shm files
	// the database's mode); the log file is created so before zap opens it.
	for _, f := range []string{opts.DBPath, opts.DBPath + "-wal", opts.DBPath + "-shm"} {
		if err := os.Chmod(f, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("temporalserver: make %s private: %w", f, err)
		}
	}
	if lf, err := os.OpenFile(opts.LogPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
		lf.Close()
	}

	hostPort := loopback.Addr(frontend)
	metricsPort, err := loopback.FreePort()
	if err != nil {
		return nil, err
	}
	cfg := serverConfig(sqlCfg, hostPort, ports, loopback.Addr(metricsPort))
	logger := log.NewZapLogger(withFatalHook(log.BuildZapLogger(log.Config{Level: opts.LogLevel, OutputFile: opts.LogPath, Format: "json"}), opts.LogPath))

	hosts := make(map[primitives.ServiceName]static.Hosts, len(ports))
	for svc, p := range ports {
		hosts[svc] = static.SingleLocalHost(loopback.Addr(p))
	}
	srv, err := temporal.NewServer(
		temporal.WithConfig(cfg),
		temporal.ForServices(temporal.DefaultServices),
		temporal.WithStaticHosts(hosts),
		temporal.WithLogger(logger),
		temporal.WithDynamicConfigClient(dynamicconfig.StaticClient{
			// Let a dev machine see a new run in the list at once.
			dynamicconfig.ForceSearchAttributesCacheRefreshOnRead.Key(): []dynamicconfig.ConstrainedValue{{Value: true}},
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("temporalserver: configure: %w", err)
	}
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("temporalserver: start (log: %s): %w", opts.LogPath, err)
	}
	s := &Server{srv: srv, hostPort: hostPort, metricsAddr: loopback.Addr(metricsPort), opts: opts}
	if err := s.waitReady(ctx); err != nil {
		_ = srv.Stop()
		return nil, err
	}
	return s, nil
}

// HostPort is the frontend address clients and workers dial.
func (s *Server) HostPort() string { return s.hostPort }

// MetricsURL is where the server's own Prometheus metrics are served (a free loopback port
// chosen at start).
func (s *Server) MetricsURL() string { return "http://" + s.metricsAddr + "/metrics" }

// LogPath is where the server writes its own log.
func (s *Server) LogPath() string { return s.opts.LogPath }

// Stop shuts every service down and closes the SQLite file.
func (s *Server) Stop() error { return s.srv.Stop() }

// waitReady dials the frontend until it answers a health check or the timeout passes.
func (s *Server) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.opts.ReadyTimeout)
	defer cancel()
	var lastErr error
	for {
		c, err := client.DialContext(ctx, client.Options{HostPort: s.hostPort, Namespace: DefaultNamespace, Logger: quietLogger{}})
		if err == nil {
			_, err = c.CheckHealth(ctx, &client.CheckHealthRequest{})
			if err == nil {
				_, err = c.WorkflowService().DescribeNamespace(ctx, describeDefault())
			}
			c.Close()
			if err == nil {
				return nil
			}
		}
		lastErr = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w at %s within %s: %w (log: %s)", ErrNotReady, s.hostPort, s.opts.ReadyTimeout, lastErr, s.opts.LogPath)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func serverConfig(sqlCfg *config.SQL, hostPort string, ports map[primitives.ServiceName]int, metricsAddr string) *config.Config {
	svc := func(name primitives.ServiceName) config.Service {
		return config.Service{RPC: config.RPC{GRPCPort: ports[name], BindOnIP: Host}}
	}
	return &config.Config{
		Global: config.Global{
			Membership: config.Membership{MaxJoinDuration: 30 * time.Second, BroadcastAddress: Host},
			Metrics: &metrics.Config{Prometheus: &metrics.PrometheusConfig{
				ListenAddress: metricsAddr,
				HandlerPath:   "/metrics",
			}},
		},
		Persistence: config.Persistence{
			DefaultStore:     sqliteplugin.PluginName,
			VisibilityStore:  sqliteplugin.PluginName,
			NumHistoryShards: 1,
			DataStores:       map[string]config.DataStore{sqliteplugin.PluginName: {SQL: sqlCfg}},
		},
		ClusterMetadata: &cluster.Config{
			EnableGlobalNamespace:    false,
			FailoverVersionIncrement: 10,
			MasterClusterName:        "active",
			CurrentClusterName:       "active",
			ClusterInformation: map[string]cluster.ClusterInformation{
				"active": {Enabled: true, InitialFailoverVersion: 1, RPCAddress: hostPort},
			},
		},
		DCRedirectionPolicy: config.DCRedirectionPolicy{Policy: "noop"},
		Services: map[string]config.Service{
			string(primitives.FrontendService): svc(primitives.FrontendService),
			string(primitives.HistoryService):  svc(primitives.HistoryService),
			string(primitives.MatchingService): svc(primitives.MatchingService),
			string(primitives.WorkerService):   svc(primitives.WorkerService),
		},
		Archival: config.Archival{
			History:    config.HistoryArchival{State: "disabled"},
			Visibility: config.VisibilityArchival{State: "disabled"},
		},
		NamespaceDefaults: config.NamespaceDefaults{Archival: config.ArchivalNamespaceDefaults{
			History:    config.HistoryArchivalNamespaceDefaults{State: "disabled"},
			Visibility: config.VisibilityArchivalNamespaceDefaults{State: "disabled"},
		}},
		PublicClient: config.PublicClient{HostPort: hostPort},
	}
}
