package s3gw_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/asofrag/asof/infra/s3gw"
	"github.com/asofrag/asof/internal/blob"
	"github.com/asofrag/asof/internal/blob/blobtest"
)

// gw is the one gateway this test process may run (versitygw allows one per process).
var gw *s3gw.Gateway

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "s3gw-test-")
	if err != nil {
		panic(err)
	}
	creds, err := s3gw.LoadOrCreateCredentials(filepath.Join(dir, "creds.json"))
	if err != nil {
		panic(err)
	}
	gw, err = s3gw.Start(context.Background(), s3gw.Options{Root: filepath.Join(dir, "s3"), Port: -1, Credentials: creds, Buckets: []string{"contract"}})
	if err != nil {
		panic(err)
	}
	code := m.Run()
	if err := gw.Stop(); err != nil {
		println("stop gateway:", err.Error())
		code = 1
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

func bucket(t *testing.T, name, prefix string) *blob.S3 {
	t.Helper()
	c := gw.Credentials()
	b, err := blob.NewS3(context.Background(), blob.S3Options{
		Bucket: name, Prefix: prefix, Endpoint: gw.Endpoint(), Region: gw.Region(),
		AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey, PartSize: 5 << 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestS3Contract runs the Bucket contract against S3 on a real in-process versitygw,
// under a key prefix so that prefix handling is exercised too.
func TestS3Contract(t *testing.T) {
	blobtest.Run(t, bucket(t, "contract", "tenant/a"))
}

func TestEnsureBucketCreatesAndIsIdempotent(t *testing.T) {
	b := bucket(t, "fresh-bucket", "")
	ctx := context.Background()
	if _, err := b.Put(ctx, "x", strings.NewReader("x")); err == nil {
		t.Fatal("Put into a bucket that does not exist succeeded")
	}
	for range 2 {
		if err := b.EnsureBucket(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Put(ctx, "x", strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
}

func TestWrongCredentialsAreRejected(t *testing.T) {
	b, err := blob.NewS3(context.Background(), blob.S3Options{
		Bucket: "contract", Endpoint: gw.Endpoint(), Region: gw.Region(), AccessKeyID: "nobody", SecretAccessKey: "wrong-secret",
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() error{
		"Get":  func() error { _, err := b.Get(context.Background(), "anything"); return err },
		"Stat": func() error { _, err := b.Stat(context.Background(), "anything"); return err },
	} {
		// Some servers answer an unknown key with 404; that must not read as "object missing".
		if err := call(); err == nil || errors.Is(err, blob.ErrNotFound) {
			t.Errorf("%s with wrong keys: err = %v, want an access error", name, err)
		}
	}
}

func TestSecondGatewayInProcessIsRefused(t *testing.T) {
	_, err := s3gw.Start(context.Background(), s3gw.Options{Root: t.TempDir(), Port: -1, Credentials: gw.Credentials()})
	if !errors.Is(err, s3gw.ErrAlreadyRunning) {
		t.Fatalf("err = %v, want ErrAlreadyRunning", err)
	}
}

func TestWorkingDirectoryIsRestored(t *testing.T) {
	// The package's gateway runs (TestMain), so the cwd is its root now; a gateway can only be
	// checked for restoring it by stopping the shared one, which the other tests need. Check
	// the documented state instead: while running, the cwd is the gateway's root.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(wd) != "s3" {
		t.Fatalf("working directory while the gateway runs = %s, want its root", wd)
	}
}

func TestCredentialsPersist(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "creds.json")
	a, err := s3gw.LoadOrCreateCredentials(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s3gw.LoadOrCreateCredentials(p)
	if err != nil || a != b {
		t.Fatalf("second load = %+v, %v; want %+v", b, err, a)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Fatalf("credentials file mode %v, want 0600", st.Mode().Perm())
	}
	os.WriteFile(p, []byte("{"), 0o600)
	if _, err := s3gw.LoadOrCreateCredentials(p); err == nil {
		t.Fatal("damaged credentials file accepted")
	}
}

// BenchmarkS3 measures the S3 path end to end: aws-sdk-go-v2 → versitygw → posix folder.
func BenchmarkS3(b *testing.B) {
	c := gw.Credentials()
	bucket, err := blob.NewS3(context.Background(), blob.S3Options{Bucket: "contract", Prefix: "bench", Endpoint: gw.Endpoint(), Region: gw.Region(), AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey})
	if err != nil {
		b.Fatal(err)
	}
	blobtest.Bench(b, bucket)
}
