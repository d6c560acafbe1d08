package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/asofrag/asof/internal/blob"
)

// sdkNoCredentials asks a real S3 client for an object with no credentials anywhere (no keys,
// no ~/.aws, IMDS off) and returns the AWS SDK's own error. It fails before any connection.
func sdkNoCredentials(t *testing.T) error {
	t.Helper()
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	b, err := blob.Open(context.Background(), "s3://asof?endpoint=http://127.0.0.1:1", blob.S3Options{Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Exists(context.Background(), "corpora/x.parquet")
	if err == nil {
		t.Fatal("no error without credentials")
	}
	return fmt.Errorf("upload %s: %w", "docs.parquet", err)
}

func TestExplainNoCredentials(t *testing.T) {
	sdkErr := sdkNoCredentials(t)
	workerErr := explainFailure(failingWorkflowError(t, func(ctx workflow.Context) error { return once(ctx, "Put") }, func(env *testsuite.TestWorkflowEnvironment) {
		env.RegisterActivityWithOptions(func(context.Context) error { return sdkErr }, activity.RegisterOptions{Name: "Put"})
	}), "asof-index-x", "in the Web UI")
	other := errors.New("connect to Temporal at 127.0.0.1:1: connection refused")
	tests := []struct {
		name      string
		err       error
		want      string
		wantWhere string
	}{
		{"the AWS SDK in this process", sdkErr, "asof: " + errNoS3Credentials.Error() + "\n", ""},
		{"a worker's activity", fmt.Errorf("index x: %w", workerErr), "asof: " + errNoS3Credentials.Error() + "\n", "  see workflow asof-index-x (activity Put) in the Web UI\n"},
		{"another error", other, "asof: " + other.Error() + "\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			printError(&b, tt.err)
			if want := tt.want + tt.wantWhere; b.String() != want {
				t.Errorf("printed\n%q\nwant\n%q\n(from %v)", b.String(), want, tt.err)
			}
			if got := explainNoCredentials(tt.err); !errors.Is(got, tt.err) {
				t.Error("the original error is not kept behind Unwrap")
			}
		})
	}
	for _, s := range []string{"ASOF_S3_ACCESS_KEY_ID", "ASOF_S3_SECRET_ACCESS_KEY", "asof dev", "asof server"} {
		if !strings.Contains(errNoS3Credentials.Error(), s) {
			t.Errorf("the message does not name %s", s)
		}
	}
}
