// Package redact hides the secrets a person may write into an address before it is printed:
// the password of a URL's user information (s3://KEY:SECRET@host → s3://KEY:***@host), a
// user information that is a single token (https://TOKEN@host → https://***@host), and the
// values of query parameters that name a secret (X-Amz-Signature, token, password, …). It is
// the one helper every line that prints a --store, endpoint, --temporal or base URL uses.
package redact

import (
	"net/url"
	"strings"
)

// Mask is what stands in for a hidden secret.
const Mask = "***"

// URL returns s with its secrets replaced by Mask; everything else is kept byte for byte,
// so the address stays recognisable. s may be a URL with a scheme (s3://, https://), a bare
// authority (KEY:SECRET@host:7233) or anything else (returned as it is, apart from a
// secret-looking query).
func URL(s string) string {
	rest, scheme := s, ""
	if i := strings.Index(s, "://"); i >= 0 {
		scheme, rest = s[:i+3], s[i+3:]
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	if at := strings.LastIndex(authority, "@"); at >= 0 {
		user, host := authority[:at], authority[at+1:]
		if name, _, ok := strings.Cut(user, ":"); ok {
			user = name + ":" + Mask
		} else {
			user = Mask
		}
		authority = user + "@" + host
	}
	return scheme + authority + query(tail)
}

// HasUserInfo reports whether s (a URL or a bare authority) carries user information, a
// secret that should come from the environment instead.
func HasUserInfo(s string) bool {
	_, rest, ok := strings.Cut(s, "://")
	if !ok {
		rest = s
	}
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		rest = rest[:end]
	}
	return strings.Contains(rest, "@")
}

// query masks, in the path-and-query tail of a URL, the values of parameters whose names
// say they hold a secret.
func query(tail string) string {
	q := strings.Index(tail, "?")
	if q < 0 {
		return tail
	}
	path, params := tail[:q+1], tail[q+1:]
	frag := ""
	if h := strings.Index(params, "#"); h >= 0 {
		params, frag = params[:h], params[h:]
	}
	parts := strings.Split(params, "&")
	for i, p := range parts {
		name, _, ok := strings.Cut(p, "=")
		if ok && secretName(name) {
			parts[i] = name + "=" + Mask
		}
	}
	return path + strings.Join(parts, "&") + frag
}

// secretParams are substrings of query parameter names that hold secrets.
var secretParams = []string{"secret", "password", "passwd", "token", "signature", "credential", "api_key", "apikey", "access_key", "sig"}

// secretName reports whether a query parameter's name says it holds a secret.
func secretName(name string) bool {
	if n, err := url.QueryUnescape(name); err == nil {
		name = n
	}
	name = strings.ToLower(name)
	for _, s := range secretParams {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}
