package storeio

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/schemas"
)

// TestReadProbe: a probe comes back with its size and ETag; a missing one is the bucket's
// error; one that does not decode or has another version is ErrMismatch naming the key.
func TestReadProbe(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		stored  string // "": nothing stored
		wantErr error
		wantMsg string
	}{
		{name: "written", stored: `{"version":1,"workflow_id":"w","payload":"xx"}`},
		{name: "missing", wantErr: blob.ErrNotFound},
		{name: "not JSON", stored: `{"version":`, wantErr: ErrMismatch, wantMsg: "probe p.json is not the JSON that was written"},
		{name: "other version", stored: `{"version":2}`, wantErr: ErrMismatch, wantMsg: "probe p.json has version 2, want 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBucket(t)
			var put blob.ObjectInfo
			if tc.stored != "" {
				var err error
				if put, err = b.Put(ctx, "p.json", strings.NewReader(tc.stored)); err != nil {
					t.Fatal(err)
				}
			}
			p, info, err := ReadProbe(ctx, b, "p.json")
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.wantMsg) {
					t.Fatalf("err %v, want %v %q", err, tc.wantErr, tc.wantMsg)
				}
				return
			}
			if err != nil || p.Version != schemas.HealthProbeVersion || p.WorkflowID != "w" || p.Payload != "xx" ||
				info.Size != int64(len(tc.stored)) || info.ETag != put.ETag {
				t.Fatalf("ReadProbe = %+v, %+v, %v", p, info, err)
			}
		})
	}
}
