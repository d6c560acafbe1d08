package blobtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/asofrag/asof/internal/blob"
)

// Bench measures writing and reading back objects of a few sizes through b.
func Bench(b *testing.B, bucket blob.Bucket) {
	ctx := context.Background()
	for _, size := range []int{4 << 10, 1 << 20, 16 << 20} {
		data := bytes.Repeat([]byte("asof"), size/4)
		b.Run(fmt.Sprintf("Put/%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(size))
			for i := 0; b.Loop(); i++ {
				if _, err := bucket.Put(ctx, fmt.Sprintf("bench/put-%d", i%8), bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("Get/%dKiB", size>>10), func(b *testing.B) {
			if _, err := bucket.Put(ctx, "bench/get", bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(size))
			for b.Loop() {
				r, err := bucket.Get(ctx, "bench/get")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, r); err != nil {
					b.Fatal(err)
				}
				r.Close()
			}
		})
	}
}
