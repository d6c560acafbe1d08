package chunk

import (
	"strings"
	"testing"
)

// TestDefaultCapsPiecesPerDocument: by default one very long text (a 2 MB row made 2,010
// chunks without a cap) yields at most DefaultMaxPieces pieces and says it was cut, while a
// text under the cap is whole.
func TestDefaultCapsPiecesPerDocument(t *testing.T) {
	sentence := "The committee heard evidence on the budget and adjourned until the next sitting. "
	tests := []struct {
		name          string
		text          string
		wantPieces    int
		wantTruncated bool
	}{
		{name: "2 MB record", text: strings.Repeat(sentence, 2<<20/len(sentence)), wantPieces: DefaultMaxPieces, wantTruncated: true},
		{name: "long but under the cap", text: strings.Repeat(sentence, 1000), wantPieces: -1},
		{name: "short post", text: sentence, wantPieces: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pieces, truncated := Split(tt.text, DefaultOptions())
			if truncated != tt.wantTruncated {
				t.Fatalf("truncated = %v, want %v (%d pieces)", truncated, tt.wantTruncated, len(pieces))
			}
			if tt.wantPieces >= 0 && len(pieces) != tt.wantPieces {
				t.Fatalf("%d pieces, want %d", len(pieces), tt.wantPieces)
			}
			if len(pieces) > DefaultMaxPieces {
				t.Fatalf("%d pieces, above the default cap %d", len(pieces), DefaultMaxPieces)
			}
			if !truncated && pieces[len(pieces)-1].End != len([]rune(tt.text)) {
				t.Fatalf("an uncut text ends at %d of %d", pieces[len(pieces)-1].End, len([]rune(tt.text)))
			}
		})
	}
}
