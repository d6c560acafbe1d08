package corpus

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/asofrag/asof/schemas"
)

// TestCanonicalColumnsAreDocumentFields: the columns an input is read by are exactly the
// parquet names of schemas.Document but those the build sets (plannedFields), each either
// required or optional, and a column is
// optional exactly when the field is.
func TestCanonicalColumnsAreDocumentFields(t *testing.T) {
	typ := reflect.TypeFor[schemas.Document]()
	var fields []string
	for i := range typ.NumField() {
		tag := typ.Field(i).Tag.Get("parquet")
		name, opts, _ := strings.Cut(tag, ",")
		if slices.Contains(plannedFields, name) {
			continue
		}
		fields = append(fields, name)
		// A pointer (SourceWeight) is optional even without the tag option.
		optional := strings.Contains(opts, "optional") || typ.Field(i).Type.Kind() == reflect.Pointer
		if slices.Contains(requiredColumns, name) && optional {
			t.Errorf("column %s is required here but optional in schemas.Document", name)
		}
	}
	columns := append(slices.Clone(requiredColumns), optionalColumns...)
	slices.Sort(fields)
	slices.Sort(columns)
	if !slices.Equal(fields, columns) {
		t.Errorf("canonical columns %v, schemas.Document's parquet names %v", columns, fields)
	}
}
