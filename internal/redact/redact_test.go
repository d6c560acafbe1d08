package redact

import "testing"

func TestURL(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"no secret", "s3://bucket/prefix?endpoint=http://127.0.0.1:7070&region=us-east-1", "s3://bucket/prefix?endpoint=http://127.0.0.1:7070&region=us-east-1"},
		{"s3 key and secret", "s3://AKIAEXAMPLE:wJalrXUtnFEMI@bucket/prefix", "s3://AKIAEXAMPLE:***@bucket/prefix"},
		{"https endpoint", "https://minio:s3cr3t@minio.local:9000", "https://minio:***@minio.local:9000"},
		{"token only", "https://ghp_TOKEN@example.com/v1", "https://***@example.com/v1"},
		{"at sign in the password", "http://u:p@ss@host/x", "http://u:***@host/x"},
		{"bare authority", "user:pw@temporal:7233", "user:***@temporal:7233"},
		{"host and port", "127.0.0.1:7233", "127.0.0.1:7233"},
		{"at in the path is no user", "https://host/a@b", "https://host/a@b"},
		{"signed query", "https://b.s3.amazonaws.com/k?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=abc&x=1", "https://b.s3.amazonaws.com/k?X-Amz-Credential=***&X-Amz-Signature=***&x=1"},
		{"token in query, fragment kept", "http://h/v1?token=abc#top", "http://h/v1?token=***#top"},
		{"file url", "file:///var/asof", "file:///var/asof"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := URL(tt.in); got != tt.want {
				t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestHasUserInfo(t *testing.T) {
	tests := []struct {
		name, in string
		want     bool
	}{
		{"s3 with keys", "s3://K:S@bucket/p", true},
		{"s3 plain", "s3://bucket/p?endpoint=http://a@b", false},
		{"bare authority", "u:p@host:1", true},
		{"host port", "host:1", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HasUserInfo(tt.in); got != tt.want {
				t.Errorf("HasUserInfo(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}
