package main

import (
	"errors"
	"strings"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// errNoS3Credentials says where the store's keys come from, instead of the AWS SDK's account
// of its credential chain (which ends in "no EC2 IMDS role found" on any machine outside EC2).
var errNoS3Credentials = errors.New("no S3 credentials for the store: set ASOF_S3_ACCESS_KEY_ID and ASOF_S3_SECRET_ACCESS_KEY " +
	"(the embedded gateway's keys: `asof dev` and `asof server` print them; they are in <data-dir>/s3-credentials.json), " +
	"or the AWS chain's AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, ~/.aws or SSO")

// noCredentialsMarks are what the AWS SDK says when its credential chain found nothing; a
// worker's failure reaches the CLI as text only.
var noCredentialsMarks = []string{"failed to retrieve credentials", "failed to refresh cached credentials", "no EC2 IMDS role found"}

// noCredentials is an error whose cause is the AWS SDK finding no credentials.
type noCredentials struct{ err error }

func (e *noCredentials) Error() string   { return errNoS3Credentials.Error() }
func (e *noCredentials) Unwrap() []error { return []error{errNoS3Credentials, e.err} }

// explainNoCredentials replaces an error caused by the AWS SDK finding no credentials (a
// request it could not sign, in this process or a worker's) with errNoS3Credentials; the
// original stays behind Unwrap, and so does a workflow failure's second line. Other errors
// come back as they are.
func explainNoCredentials(err error) error {
	if err == nil {
		return nil
	}
	var se *v4.SigningError
	noCreds := errors.As(err, &se) && strings.Contains(se.Error(), "credentials")
	for _, m := range noCredentialsMarks {
		noCreds = noCreds || strings.Contains(err.Error(), m)
	}
	if !noCreds {
		return err
	}
	return &noCredentials{err: err}
}
