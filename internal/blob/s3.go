package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// S3Options configure an S3 bucket. Credentials come from AccessKeyID/SecretAccessKey when
// set, otherwise from the standard AWS chain (environment, shared config, SSO, IMDS).
type S3Options struct {
	// Bucket is the S3 bucket name. Required.
	Bucket string
	// Prefix is prepended (with a slash) to every key; empty uses the bucket's root.
	Prefix string
	// Endpoint is a custom S3 endpoint (MinIO, versitygw, ...); empty uses AWS.
	Endpoint string
	// Region defaults to us-east-1 when neither this nor the AWS chain names one.
	Region string
	// PathStyle addresses buckets as endpoint/bucket instead of bucket.endpoint; on by
	// default whenever Endpoint is set.
	PathStyle bool
	// AccessKeyID and SecretAccessKey are static credentials (optional).
	AccessKeyID     string
	SecretAccessKey string
	// PartSize is the multipart upload part size (default 8 MiB, minimum 5 MiB). Objects
	// smaller than one part are written with a single PUT.
	PartSize int64
}

// S3 is a Bucket over an S3-compatible store.
type S3 struct {
	client   *s3.Client
	bucket   string
	prefix   string // "" or "p/"
	partSize int64
	name     string
}

const minPartSize = 5 << 20

// NewS3 builds an S3 client from opts. It does not contact the server.
func NewS3(ctx context.Context, opts S3Options) (*S3, error) {
	if opts.Bucket == "" {
		return nil, errors.New("blob: S3 bucket name is required")
	}
	var loadOpts []func(*config.LoadOptions) error
	if opts.Region != "" {
		loadOpts = append(loadOpts, config.WithRegion(opts.Region))
	}
	if opts.AccessKeyID != "" || opts.SecretAccessKey != "" {
		loadOpts = append(loadOpts, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(opts.AccessKeyID, opts.SecretAccessKey, "")))
	}
	cfg, err := config.LoadDefaultConfig(ctx, loadOpts...)
	if err != nil {
		return nil, fmt.Errorf("blob: load AWS config: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if opts.Endpoint != "" {
			o.BaseEndpoint = aws.String(opts.Endpoint)
			o.UsePathStyle = true
		}
		if opts.PathStyle {
			o.UsePathStyle = true
		}
		// Checksums only where the API requires them: S3-compatible stores vary in their
		// support for the SDK's default trailing checksums.
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	})
	part := opts.PartSize
	if part == 0 {
		part = 8 << 20
	}
	if part < minPartSize {
		return nil, fmt.Errorf("blob: S3 part size %d is below the 5 MiB minimum", part)
	}
	prefix := strings.Trim(opts.Prefix, "/")
	if prefix != "" {
		prefix += "/"
	}
	name := "s3://" + opts.Bucket + "/" + prefix
	if opts.Endpoint != "" {
		name += " at " + opts.Endpoint
	}
	return &S3{client: client, bucket: opts.Bucket, prefix: prefix, partSize: part, name: name}, nil
}

// Client exposes the underlying SDK client (for creating buckets in tests and setup).
func (b *S3) Client() *s3.Client { return b.client }

// String implements Bucket.
func (b *S3) String() string { return b.name }

func (b *S3) key(key string) (string, error) {
	if err := ValidateKey(key); err != nil {
		return "", err
	}
	return b.prefix + key, nil
}

// Get implements Bucket.
func (b *S3) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	k, err := b.key(key)
	if err != nil {
		return nil, err
	}
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &b.bucket, Key: &k})
	if err != nil {
		return nil, b.mapErr("get", key, err)
	}
	return out.Body, nil
}

// Stat implements Bucket.
func (b *S3) Stat(ctx context.Context, key string) (ObjectInfo, error) {
	k, err := b.key(key)
	if err != nil {
		return ObjectInfo{}, err
	}
	out, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &b.bucket, Key: &k})
	if err != nil {
		err = b.mapErr("stat", key, err)
		if errors.Is(err, ErrNotFound) {
			// A HEAD reply has no body, so a 404 may also mean "unknown access key" (versitygw
			// does that). A GET carries the error code and tells the two apart.
			get, gerr := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &b.bucket, Key: &k, Range: aws.String("bytes=0-0")})
			if gerr == nil {
				get.Body.Close()
				return ObjectInfo{}, fmt.Errorf("stat %s in %s: HEAD said missing but GET found it (concurrent write?)", key, b)
			}
			err = b.mapErr("stat", key, gerr)
		}
		return ObjectInfo{}, err
	}
	return ObjectInfo{Key: key, Size: aws.ToInt64(out.ContentLength), ETag: unquote(aws.ToString(out.ETag)), LastModified: aws.ToTime(out.LastModified).UTC()}, nil
}

// Exists implements Bucket.
func (b *S3) Exists(ctx context.Context, key string) (bool, error) {
	_, err := b.Stat(ctx, key)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// condition is an S3 conditional-write header pair.
type condition struct{ ifNoneMatch, ifMatch *string }

// Put implements Bucket.
func (b *S3) Put(ctx context.Context, key string, r io.Reader) (ObjectInfo, error) {
	return b.put(ctx, "put", key, r, condition{})
}

// PutIfAbsent implements Bucket.
func (b *S3) PutIfAbsent(ctx context.Context, key string, r io.Reader) (ObjectInfo, error) {
	return b.put(ctx, "put-if-absent", key, r, condition{ifNoneMatch: aws.String("*")})
}

// CompareAndSwap implements Bucket.
func (b *S3) CompareAndSwap(ctx context.Context, key, etag string, r io.Reader) (ObjectInfo, error) {
	return b.put(ctx, "compare-and-swap", key, r, condition{ifMatch: aws.String(`"` + unquote(etag) + `"`)})
}

// put sends objects smaller than one part with a single PUT and larger ones as a multipart
// upload; the condition applies to the PUT or to CompleteMultipartUpload.
func (b *S3) put(ctx context.Context, op, key string, r io.Reader, cond condition) (ObjectInfo, error) {
	k, err := b.key(key)
	if err != nil {
		return ObjectInfo{}, err
	}
	first := make([]byte, b.partSize)
	n, err := io.ReadFull(r, first)
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		out, err := b.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: &b.bucket, Key: &k, Body: bytes.NewReader(first[:n]), ContentLength: aws.Int64(int64(n)),
			IfNoneMatch: cond.ifNoneMatch, IfMatch: cond.ifMatch,
		})
		if err != nil {
			return ObjectInfo{}, b.mapErr(op, key, err)
		}
		return ObjectInfo{Key: key, Size: int64(n), ETag: unquote(aws.ToString(out.ETag)), LastModified: time.Now().UTC()}, nil
	case err != nil:
		return ObjectInfo{}, fmt.Errorf("%s %s: read input: %w", op, key, err)
	}
	return b.multipart(ctx, op, key, k, first, r, cond)
}

func (b *S3) multipart(ctx context.Context, op, key, k string, first []byte, r io.Reader, cond condition) (ObjectInfo, error) {
	up, err := b.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &b.bucket, Key: &k})
	if err != nil {
		return ObjectInfo{}, b.mapErr(op, key, err)
	}
	abort := func(cause error) (ObjectInfo, error) {
		// A fresh context: the upload must be aborted even when ctx was cancelled.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_, _ = b.client.AbortMultipartUpload(actx, &s3.AbortMultipartUploadInput{Bucket: &b.bucket, Key: &k, UploadId: up.UploadId})
		return ObjectInfo{}, cause
	}
	var parts []types.CompletedPart
	var size int64
	buf := first
	for num := int32(1); ; num++ {
		out, err := b.client.UploadPart(ctx, &s3.UploadPartInput{
			Bucket: &b.bucket, Key: &k, UploadId: up.UploadId, PartNumber: aws.Int32(num),
			Body: bytes.NewReader(buf), ContentLength: aws.Int64(int64(len(buf))),
		})
		if err != nil {
			return abort(b.mapErr(op, key, err))
		}
		parts = append(parts, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(num)})
		size += int64(len(buf))
		if len(buf) < int(b.partSize) {
			break
		}
		next := make([]byte, b.partSize)
		n, err := io.ReadFull(r, next)
		if n == 0 && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
			break
		}
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return abort(fmt.Errorf("%s %s: read input: %w", op, key, err))
		}
		buf = next[:n]
	}
	out, err := b.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
		Bucket: &b.bucket, Key: &k, UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
		IfNoneMatch:     cond.ifNoneMatch, IfMatch: cond.ifMatch,
	})
	if err != nil {
		return abort(b.mapErr(op, key, err))
	}
	return ObjectInfo{Key: key, Size: size, ETag: unquote(aws.ToString(out.ETag)), LastModified: time.Now().UTC()}, nil
}

// Iter implements Bucket.
func (b *S3) Iter(ctx context.Context, prefix string, fn func(ObjectInfo) error) error {
	full := b.prefix + prefix
	p := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{Bucket: &b.bucket, Prefix: &full})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return b.mapErr("list", prefix, err)
		}
		for _, o := range page.Contents {
			k := strings.TrimPrefix(aws.ToString(o.Key), b.prefix)
			if strings.HasSuffix(k, "/") { // folder marker written by another tool
				continue
			}
			info := ObjectInfo{Key: k, Size: aws.ToInt64(o.Size), ETag: unquote(aws.ToString(o.ETag)), LastModified: aws.ToTime(o.LastModified).UTC()}
			if err := fn(info); err != nil {
				return err
			}
		}
	}
	return nil
}

// Delete implements Bucket.
func (b *S3) Delete(ctx context.Context, key string) error {
	k, err := b.key(key)
	if err != nil {
		return err
	}
	if _, err := b.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &b.bucket, Key: &k}); err != nil {
		if err := b.mapErr("delete", key, err); !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	return nil
}

// EnsureBucket creates the bucket if it does not exist yet.
func (b *S3) EnsureBucket(ctx context.Context) error {
	if _, err := b.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &b.bucket}); err == nil {
		return nil
	}
	_, err := b.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &b.bucket})
	var owned *types.BucketAlreadyOwnedByYou
	if err != nil && !errors.As(err, &owned) {
		return fmt.Errorf("create bucket %s: %w", b.bucket, err)
	}
	return nil
}

// mapErr turns S3 errors into the package's sentinels where one applies. The error code
// decides when there is one (a 404 can also mean "unknown access key" on some servers); the
// HTTP status decides only for bodiless replies.
func (b *S3) mapErr(op, key string, err error) error {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode() != "" {
		switch apiErr.ErrorCode() {
		case "NoSuchKey", "NotFound":
			return fmt.Errorf("%s %s in %s: %w", op, key, b, ErrNotFound)
		case "PreconditionFailed", "ConditionalRequestConflict":
			return fmt.Errorf("%s %s in %s: %w", op, key, b, ErrPreconditionFailed)
		case "NoSuchBucket":
			return fmt.Errorf("%s %s: bucket %q does not exist at %s: %w", op, key, b.bucket, b, err)
		}
		return fmt.Errorf("%s %s in %s: %w", op, key, b, err)
	}
	var respErr *awshttp.ResponseError
	if errors.As(err, &respErr) {
		switch respErr.HTTPStatusCode() {
		case http.StatusNotFound:
			return fmt.Errorf("%s %s in %s: %w", op, key, b, ErrNotFound)
		case http.StatusPreconditionFailed, http.StatusConflict:
			return fmt.Errorf("%s %s in %s: %w", op, key, b, ErrPreconditionFailed)
		}
	}
	return fmt.Errorf("%s %s in %s: %w", op, key, b, err)
}

func unquote(etag string) string { return strings.Trim(etag, `"`) }
