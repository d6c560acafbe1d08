// Package stackfile records, in a data dir, where the `asof dev`, `asof server` or `asof serve`
// that runs its embedded servers on it listens, so that every other asof command on that data
// dir uses that stack instead of starting a second one (whose ports and SQLite file would
// clash with the first).
//
// The record (<data-dir>/stack.json, mode 0600) holds addresses, the process id and the path
// of the S3 keys file, never a secret. It is written once the servers listen and removed on a
// clean exit; one left behind by a crash is stale (its process is gone or its ports do not
// answer), is ignored by Find and is replaced by the next Write.
package stackfile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// Name is the record's file name inside the data dir.
const Name = "stack.json"

// ErrNone is returned by Find when the data dir records no stack.
var ErrNone = errors.New("no running asof dev or asof server is recorded")

// ErrStale is returned (wrapped, with the reason) by Find when the recorded stack no longer
// runs: its process is gone, one of its addresses does not answer, or the record is damaged.
var ErrStale = errors.New("stale stack record")

// Record is where a running stack listens.
type Record struct {
	// By names the command that runs the stack ("asof dev", "asof server", "asof serve").
	By string `json:"by"`
	// PID is that command's process id.
	PID int `json:"pid"`
	// Started is when the stack came up.
	Started time.Time `json:"started"`
	// Temporal is the Temporal frontend's host:port; Namespace the namespace it serves.
	Temporal  string `json:"temporal"`
	Namespace string `json:"namespace"`
	// UI is the Temporal Web UI's address ("" when it is not served).
	UI string `json:"ui,omitempty"`
	// Store is the artifact store's URL; S3Endpoint, S3Region and Bucket describe it when it is
	// S3 (S3Endpoint is set for a custom endpoint such as the embedded gateway).
	Store      string `json:"store"`
	S3Endpoint string `json:"s3_endpoint,omitempty"`
	S3Region   string `json:"s3_region,omitempty"`
	Bucket     string `json:"bucket,omitempty"`
	// S3KeysFile is the file that holds the embedded gateway's keys (mode 0600); "" for an
	// external store, whose keys come from the client's own environment.
	S3KeysFile string `json:"s3_keys_file,omitempty"`
	// TaskQueues are the queues the stack's own worker polls; none for `asof server`.
	TaskQueues []string `json:"task_queues,omitempty"`
}

// Path is the record's path in dataDir.
func Path(dataDir string) string { return filepath.Join(dataDir, Name) }

// Write records r in dataDir (mode 0600), replacing any earlier record; the file appears
// whole or not at all.
func Write(dataDir string, r Record) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("stack record: %w", err)
	}
	tmp, err := os.CreateTemp(dataDir, Name+".*")
	if err != nil {
		return fmt.Errorf("stack record: %w", err)
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file 0600 already; say so for the reader.
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("stack record: %w", err)
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("stack record: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("stack record: %w", err)
	}
	if err := os.Rename(tmp.Name(), Path(dataDir)); err != nil {
		return fmt.Errorf("stack record: %w", err)
	}
	return nil
}

// Remove deletes dataDir's record if it is still the one process pid wrote; a record another
// process wrote since stays.
func Remove(dataDir string, pid int) error {
	r, err := Read(dataDir)
	if err != nil || r.PID != pid {
		return nil
	}
	if err := os.Remove(Path(dataDir)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("stack record: %w", err)
	}
	return nil
}

// Read returns dataDir's record as written, live or not: ErrNone when there is none, an
// ErrStale error when it cannot be read as a record.
func Read(dataDir string) (Record, error) {
	p := Path(dataDir)
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return Record{}, ErrNone
	}
	if err != nil {
		return Record{}, fmt.Errorf("read %s: %w", p, err)
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return Record{}, fmt.Errorf("%w: %s is damaged: %v", ErrStale, p, err)
	}
	if r.PID <= 0 || r.Temporal == "" {
		return Record{}, fmt.Errorf("%w: %s lacks the process id or the Temporal address", ErrStale, p)
	}
	return r, nil
}

// Find returns the stack dataDir records if it still runs: its process exists and its
// Temporal frontend and S3 endpoint accept connections within timeout. Otherwise it returns
// ErrNone, or an ErrStale error that says why the record is ignored.
func Find(ctx context.Context, dataDir string, timeout time.Duration) (Record, error) {
	r, err := Read(dataDir)
	if err != nil {
		return Record{}, err
	}
	if !processExists(r.PID) {
		return Record{}, fmt.Errorf("%w: %s: process %d (%s) has exited", ErrStale, Path(dataDir), r.PID, r.By)
	}
	addrs := []string{r.Temporal}
	if r.S3Endpoint != "" {
		u, err := url.Parse(r.S3Endpoint)
		if err != nil || u.Host == "" {
			return Record{}, fmt.Errorf("%w: %s: S3 endpoint %q is not a URL", ErrStale, Path(dataDir), r.S3Endpoint)
		}
		addrs = append(addrs, u.Host)
	}
	var d net.Dialer
	for _, a := range addrs {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		c, err := d.DialContext(cctx, "tcp", a)
		cancel()
		if err != nil {
			return Record{}, fmt.Errorf("%w: %s: %s does not answer: %v", ErrStale, Path(dataDir), a, err)
		}
		c.Close()
	}
	return r, nil
}

// Keys reads the S3 keys r.S3KeysFile holds (the embedded gateway's, in the data dir, mode
// 0600); empty strings when r names no keys file.
func (r Record) Keys() (accessKeyID, secretAccessKey string, err error) {
	if r.S3KeysFile == "" {
		return "", "", nil
	}
	data, err := os.ReadFile(r.S3KeysFile)
	if err != nil {
		return "", "", fmt.Errorf("read the running stack's S3 keys: %w", err)
	}
	var k struct {
		AccessKeyID     string `json:"access_key_id"`
		SecretAccessKey string `json:"secret_access_key"`
	}
	if err := json.Unmarshal(data, &k); err != nil || k.AccessKeyID == "" || k.SecretAccessKey == "" {
		return "", "", fmt.Errorf("the running stack's S3 keys file %s is damaged (%v)", r.S3KeysFile, err)
	}
	return k.AccessKeyID, k.SecretAccessKey, nil
}
