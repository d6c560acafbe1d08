// Package schemas holds the record types asof persists (Parquet rows, manifests and JSON
// artifacts) and their version numbers. A reader checks the version before it trusts a record;
// a change that breaks readers bumps the version.
package schemas
