package main

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/asofrag/asof/infra"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/config"
)

func TestStartBootTakenMetricsPortStartsNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := t.TempDir()
	a := &app{cfg: config.Default(), stdout: io.Discard, stderr: io.Discard}
	a.cfg.DataDir = dir
	a.cfg.MetricsAddr = ln.Addr().String()
	if b, err := a.startBoot(context.Background(), "asof test", false); err == nil {
		b.Close()
		t.Fatal("startBoot on a taken metrics port: no error")
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("the stack started anyway: %s holds %d entries", dir, len(entries))
	}
}

func TestBootWorkerDeps(t *testing.T) {
	bucket, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := &boot{st: &infra.Stack{Bucket: bucket}}
	tests := []struct {
		name        string
		set         func(c *config.Config)
		wantNoModel bool
		wantErr     bool
	}{
		{name: "no model pulled: the worker runs without one", set: func(*config.Config) {}, wantNoModel: true},
		{name: "a reranker that cannot be built stops the command", set: func(c *config.Config) { c.Rerank.BaseURL = "ftp://nowhere" }, wantNoModel: true, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.DataDir = filepath.Join(t.TempDir(), "data")
			tt.set(&cfg)
			deps, noModel, release, err := b.workerDeps(cfg)
			if release == nil {
				t.Fatal("release is nil")
			}
			defer release()
			if (noModel != nil) != tt.wantNoModel || (err != nil) != tt.wantErr {
				t.Fatalf("noModel = %v, err = %v; want noModel %v, err %v", noModel, err, tt.wantNoModel, tt.wantErr)
			}
			if deps.Bucket != bucket {
				t.Errorf("deps.Bucket = %v, want the stack's bucket", deps.Bucket)
			}
		})
	}
}
