package render

import (
	"slices"
	"testing"

	"github.com/asofrag/asof/schemas"
)

func TestDefects(t *testing.T) {
	timeline := func(cs ...schemas.Claim) schemas.Brief { return schemas.Brief{AsOf: asOf, Timeline: cs} }
	tests := []struct {
		name   string
		b      schemas.Brief
		blocks []schemas.ContextBlock
		want   []string // the kinds found, in order
	}{
		{"clean: the tests' digest and its sources", schemas.Brief{AsOf: asOf, NewDays: 7, New: []schemas.Claim{raised}, Earlier: []schemas.Claim{held},
			Timeline: []schemas.Claim{held, raised}}, blocks, nil},
		{"clean: sentences, abbreviations, numbers, a link", timeline(
			claim("2024-06-01", "The U.S. Treasury sold $50 bn of 10-year notes at 4.25%."),
			claim("2024-06-02", "ЦБ повысил ставку до 16% (см. https://cbr.ru/Press). Рубль окреп.")), nil, nil},
		{"the same sentence on two days, case and punctuation aside", timeline(
			claim("2024-06-01", "The key rate was raised to 16%."),
			claim("2024-06-05", "THE KEY RATE WAS RAISED TO 16%!")), nil, []string{DefectRepeated}},
		{"a subscription call", timeline(claim("2024-06-01", "Ставка выросла до 16%. Подписывайтесь на наш канал @finmarket")), nil, []string{DefectBoilerplate}},
		{"glued at a join", timeline(claim("2024-06-01", "Ставка выросла до 16%.Рубль укрепился к доллару.")), nil, []string{DefectGlued}},
		{"glued at a join, letters", timeline(claim("2024-06-01", "Ставка выросла до шестнадцати процентов.Рубль укрепился.")), nil, []string{DefectGlued}},
		{"a word doubled at a join", timeline(claim("2024-06-01", "The bank raised the the key rate.")), nil, []string{DefectGlued}},
		{"a source named by its id", timeline(claim("2024-06-01", "Raised.", 7)),
			[]schemas.ContextBlock{{N: 7, DocID: "ce058c709d13b954", Title: "ce058c709d13b954"}}, []string{DefectBareID}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var kinds []string
			for _, d := range Defects(tc.b, tc.blocks) {
				kinds = append(kinds, d.Kind)
			}
			if !slices.Equal(kinds, tc.want) {
				t.Fatalf("defects %v, want %v (%v)", kinds, tc.want, Defects(tc.b, tc.blocks))
			}
		})
	}
}
