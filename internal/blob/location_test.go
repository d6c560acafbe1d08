package blob

import (
	"strings"
	"testing"
)

// TestParseLocationCredentials: a store URL with credentials written in is refused (they were
// silently ignored), and no error of ParseLocation prints the secret.
func TestParseLocationCredentials(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"s3 keys", "s3://AKIA:the-secret@bucket/p", `"s3://AKIA:***@bucket/p" holds credentials`},
		{"file with user", "file://u:the-secret@localhost/x", `"file://u:***@localhost/x" holds credentials`},
		{"bad escape", "s3://AKIA:the-secret@bucket/%zz", `"s3://AKIA:***@bucket/%zz"`},
		{"bad scheme", "gs://k:the-secret@bucket", `"gs://k:***@bucket"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseLocation(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "the-secret") {
				t.Fatalf("err = %v, want it to hold %s and not the secret", err, tt.want)
			}
		})
	}
	if loc, err := ParseLocation("s3://bucket/p?endpoint=http://127.0.0.1:7070"); err != nil || loc.Bucket != "bucket" || loc.Prefix != "p" {
		t.Fatalf("plain s3 URL: %+v, %v", loc, err)
	}
}
