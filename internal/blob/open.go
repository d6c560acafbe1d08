package blob

import (
	"context"
	"fmt"
	"strconv"

	"github.com/asofrag/asof/internal/redact"
)

// Open returns the Bucket a store URL names: "file:///path" or a plain path opens a local
// folder; "s3://bucket/prefix" opens S3 with defaults from s3 (endpoint, region and
// path_style in the URL's query override them).
func Open(ctx context.Context, rawURL string, s3 S3Options) (Bucket, error) {
	loc, err := ParseLocation(rawURL)
	if err != nil {
		return nil, err
	}
	if loc.Scheme == "file" {
		return NewLocal(loc.Path)
	}
	s3.Bucket, s3.Prefix = loc.Bucket, loc.Prefix
	if v := loc.Query.Get("endpoint"); v != "" {
		s3.Endpoint = v
	}
	if v := loc.Query.Get("region"); v != "" {
		s3.Region = v
	}
	if v := loc.Query.Get("path_style"); v != "" {
		ps, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("blob: store URL %q: path_style=%q is not a boolean", redact.URL(rawURL), v)
		}
		s3.PathStyle = ps
	}
	return NewS3(ctx, s3)
}
