package loopback

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestResolve(t *testing.T) {
	busy, err := net.Listen("tcp", Addr(0))
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := busy.Addr().(*net.TCPAddr).Port
	free, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		port, def int
		want      int // 0: any free port
		wantErr   bool
	}{
		{"default", 0, free, free, false},
		{"explicit", free, 1, free, false},
		{"pick free", -1, busyPort, 0, false},
		{"busy", busyPort, 1, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.port, tt.def)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if (tt.want != 0 && got != tt.want) || got == busyPort || got <= 0 {
				t.Fatalf("port = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestWaitHTTP(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	if err := WaitHTTP(context.Background(), srv.URL, 5*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 {
		t.Fatalf("ready after %d calls, want 3", calls.Load())
	}

	stopped := make(chan error, 1)
	stopped <- errors.New("bind failed")
	err := WaitHTTP(context.Background(), "http://"+Addr(1), 5*time.Second, stopped)
	if err == nil || !strings.Contains(err.Error(), "bind failed") {
		t.Fatalf("err = %v, want the server's own error", err)
	}
	if err := WaitHTTP(context.Background(), "http://"+Addr(1), 200*time.Millisecond, nil); err == nil {
		t.Fatal("no error for a server that never answers")
	}
}
