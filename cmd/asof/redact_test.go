package main

import (
	"strings"
	"testing"
)

// TestConfigRedactsURLCredentials: `asof config` masks a password written inside an address,
// and a store URL or S3 endpoint with credentials is refused in one line that does not repeat
// the secret.
func TestConfigRedactsURLCredentials(t *testing.T) {
	code, out, errOut := runCLI(t, map[string]string{"ASOF_LLM_BASE_URL": "http://user:hunter2@127.0.0.1:8000/v1", "ASOF_LLM_MODEL": "m"}, "config", "--data-dir", t.TempDir())
	if code != 0 {
		t.Fatal(errOut)
	}
	if strings.Contains(out, "hunter2") || !strings.Contains(out, "base_url: http://user:***@127.0.0.1:8000/v1") {
		t.Errorf("config output does not mask the LLM URL's password:\n%s", out)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"store", []string{"--store", "s3://AKIA:hunter2@bucket/p"}, `store.url (--store) "s3://AKIA:***@bucket/p" holds credentials`},
		{"endpoint", []string{"--store", "s3://bucket/p", "--s3-endpoint", "https://k:hunter2@minio:9000"}, `"https://k:***@minio:9000" holds credentials`},
		{"temporal", []string{"--temporal", "u:hunter2@temporal:7233"}, `"u:***@temporal:7233" must be host:port`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, append([]string{"config", "--data-dir", t.TempDir()}, tt.args...)...)
			if code == 0 || strings.Contains(out+errOut, "hunter2") || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
				t.Fatalf("exit %d, stdout %q, stderr %q: want a one-line refusal holding %q and no secret", code, out, errOut, tt.want)
			}
		})
	}
}
