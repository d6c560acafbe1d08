package activities_test

import (
	"context"
	"strings"
	"testing"

	"github.com/asofrag/asof/activities"
)

// TestTimelineRefusesAHugePool: a pool beyond timeline.MaxPool (or a negative number) is a bad
// input, refused before any shard is read.
func TestTimelineRefusesAHugePool(t *testing.T) {
	a := &activities.Activities{}
	for _, in := range []activities.TimelineInput{{Index: "n", Topic: "Libia", Pool: 1 << 30}, {Index: "n", Topic: "Libia", Dates: -1}} {
		_, err := a.Timeline(context.Background(), in)
		if err == nil || !strings.Contains(err.Error(), "must not be negative") {
			t.Errorf("%+v: error %v", in, err)
		}
	}
}
