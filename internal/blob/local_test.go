package blob_test

import (
	"testing"

	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/blob/blobtest"
)

func TestLocalContract(t *testing.T) {
	b, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	blobtest.Run(t, b)
}

func BenchmarkLocal(b *testing.B) {
	bucket, err := blob.NewLocal(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	blobtest.Bench(b, bucket)
}
