package workflows

// APIVersion is the major version of asof's public workflow API (docs/api.md): the workflow
// type names Ask, Digest, Eval and IndexBuild, the task queue, and the JSON of their inputs and
// results published in schemas/jsonschema/ (each file says it as "x-asof-api-version").
//
// Within one major version changes are additive only: a field may be added (a client that does
// not send it gets the default, a reader that does not know it ignores it), never removed,
// renamed or retyped. Any such change needs the next major version, and the workflow type names
// stay as they are. TestAPIChangesAreAdditive holds the fields of this version in
// schemas/jsonschema/api-v<N>.fields and fails when one disappears without a bump. Changes to
// workflow code that running workflows replay go behind workflow.GetVersion, as before: they
// are not API changes.
const APIVersion = 1
