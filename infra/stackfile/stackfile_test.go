package stackfile

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"testing"
	"time"
)

// listen returns the address of a TCP listener that lives as long as the test.
func listen(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l.Addr().String()
}

// closedAddr returns an address nothing listens on any more.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := l.Addr().String()
	l.Close()
	return a
}

// exitedPID returns the id of a process that has exited.
func exitedPID(t *testing.T) int {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("no process check on windows")
	}
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Skip("no 'true' command:", err)
	}
	return c.Process.Pid
}

func TestFind(t *testing.T) {
	temporal, s3 := listen(t), listen(t)
	live := Record{By: "asof dev", PID: os.Getpid(), Started: time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC),
		Temporal: temporal, Namespace: "default", UI: "http://127.0.0.1:8233",
		Store: "s3://asof?endpoint=http://" + s3, S3Endpoint: "http://" + s3, S3Region: "us-east-1", Bucket: "asof",
		S3KeysFile: "/d/s3-credentials.json", TaskQueues: []string{"asof-default"}}
	tests := []struct {
		name    string
		record  func() *Record // nil: no file
		raw     string         // written as is instead of a record
		wantErr error
	}{
		{name: "live", record: func() *Record { return &live }},
		{name: "live without S3", record: func() *Record { r := live; r.Store, r.S3Endpoint = "file:///s", ""; return &r }},
		{name: "none", wantErr: ErrNone},
		{name: "process gone", record: func() *Record { r := live; r.PID = exitedPID(t); return &r }, wantErr: ErrStale},
		{name: "temporal not answering", record: func() *Record { r := live; r.Temporal = closedAddr(t); return &r }, wantErr: ErrStale},
		{name: "s3 not answering", record: func() *Record { r := live; r.S3Endpoint = "http://" + closedAddr(t); return &r }, wantErr: ErrStale},
		{name: "damaged", raw: "{not json", wantErr: ErrStale},
		{name: "no pid", raw: `{"temporal":"127.0.0.1:1"}`, wantErr: ErrStale},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var want Record
			switch {
			case tt.raw != "":
				if err := os.WriteFile(Path(dir), []byte(tt.raw), 0o600); err != nil {
					t.Fatal(err)
				}
			case tt.record != nil:
				want = *tt.record()
				if err := Write(dir, want); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Find(context.Background(), dir, time.Second)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Find: err = %v, want %v", err, tt.wantErr)
			}
			if err == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("Find = %+v, want %+v", got, want)
			}
		})
	}
}

func TestWriteIsPrivateAndRemoveOnlyItsOwn(t *testing.T) {
	dir := t.TempDir()
	r := Record{By: "asof dev", PID: os.Getpid(), Temporal: "127.0.0.1:7233"}
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(Path(dir))
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if err := Remove(dir, os.Getpid()+1); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); err != nil {
		t.Fatalf("another process's Remove took the record: %v", err)
	}
	if err := Remove(dir, os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); !errors.Is(err, ErrNone) {
		t.Fatalf("after Remove: %v, want ErrNone", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind %v", entries)
	}
}

func TestKeys(t *testing.T) {
	dir := t.TempDir()
	p := dir + "/s3-credentials.json"
	if err := os.WriteFile(p, []byte(`{"access_key_id":"asofAK","secret_access_key":"s3cr3t"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	id, secret, err := Record{S3KeysFile: p}.Keys()
	if err != nil || id != "asofAK" || secret != "s3cr3t" {
		t.Fatalf("Keys = %q, %q, %v", id, secret, err)
	}
	if id, _, err := (Record{}).Keys(); err != nil || id != "" {
		t.Fatalf("no keys file: %q, %v", id, err)
	}
	if _, _, err := (Record{S3KeysFile: dir + "/missing.json"}).Keys(); err == nil {
		t.Fatal("missing keys file: no error")
	}
}
