package ident

import (
	"slices"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []ID
	}{
		{"RBI circular number", "Reserve Bank of India RBI/2025-26/252 dated March 3, 2026", []ID{{Document, "rbi/2025-26/252"}}},
		{"SEBI circular number", "Circular SEBI/HO/CFD/CMD1/CIR/P/2020/12 on lock-in", []ID{{Document, "sebi/ho/cfd/cmd1/cir/p/2020/12"}}},
		{"FEMA notification with a code", "Notification FEMA 6(R)/2026-RB amends", []ID{{Document, "fema6(r)/2026-rb"}}},
		{"circular no.", "in supersession of Circular No. 24 of 2019", []ID{{Document, "circular no 24"}}},
		{"section with clauses", "under Section 4(2)(b) of the Act", []ID{{Provision, "section 4(2)(b)"}}},
		{"section spaced", "under section 4 (2) (b) of the Act", []ID{{Provision, "section 4(2)(b)"}}},
		{"regulation with a letter", "Regulation 31A of the LODR Regulations", []ID{{Provision, "regulation 31a"}}},
		{"plural regulation", "regulations 31A and 32", []ID{{Provision, "regulation 31a"}}},
		{"T-bill", "the 91-day T-bill auction", []ID{{Instrument, "91-day t-bill"}}},
		{"treasury bill spelled out", "364 day treasury bills were sold", []ID{{Instrument, "364-day t-bill"}}},
		{"government security", "the 7.26% GS 2033 was re-issued", []ID{{Instrument, "7.26% gs 2033"}}},
		{"rupee amount", "a notified amount of Rs. 15,000 crore", []ID{{Amount, "inr 15000 crore"}}},
		{"rupee sign", "₹15000 crore", []ID{{Amount, "inr 15000 crore"}}},
		{"dollars", "$2.5 billion", []ID{{Amount, "usd 2.5 billion"}}},
		{"Russian article", "согласно статье 5 закона", []ID{{Provision, "статья 5"}}},
		{"Russian article abbreviated", "ст. 5 закона", []ID{{Provision, "статья 5"}}},
		{"Russian point", "пункт 3.1 и п. 4", []ID{{Provision, "пункт 3.1"}, {Provision, "пункт 4"}}},
		{"Russian law number", "Федеральный закон № 115-ФЗ", []ID{{Document, "№115-фз"}}},
		{"Russian amount", "выделено 100 млрд руб.", []ID{{Amount, "rub 100 billion"}}},
		{"Chinese article in numerals", "依据第十二条规定", []ID{{Provision, "第12条"}}},
		{"Chinese article in digits", "依据第12条规定", []ID{{Provision, "第12条"}}},
		{"Chinese article over a hundred", "第一百零五条", []ID{{Provision, "第105条"}}},
		{"Chinese document number", "根据银发〔2025〕12号文件", []ID{{Document, "银发[2025]12号"}}},
		{"a regulation set's year is no provision", "the SEBI (ICDR) Regulations 2018 and Regulation 12", []ID{{Provision, "regulation 12"}}},
		{"a car is no rupees", "the Audi RS 7 Sportback in 2022", nil},
		{"no identifier", "The central bank kept the key rate unchanged in 2024.", nil},
		{"a plain year is none", "In 2021 the rule changed.", nil},
		{"each once, in order", "Section 5 and Regulation 3, again Section 5", []ID{{Provision, "section 5"}, {Provision, "regulation 3"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Find(tt.text); !slices.Equal(got, tt.want) {
				t.Fatalf("Find(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

func TestHolds(t *testing.T) {
	tests := []struct {
		text string
		id   ID
		want bool
	}{
		{"under Section 4(2)(b)", ID{Provision, "section 4(2)(b)"}, true},
		{"under Section 4(2)(c)", ID{Provision, "section 4(2)(b)"}, false},
		{"under Section 14(2)(b)", ID{Provision, "section 4(2)(b)"}, false},
		{"Rs 15 000 crore", ID{Amount, "inr 15000 crore"}, true},
		{"Rs 1,500 crore", ID{Amount, "inr 15000 crore"}, false},
		{"第十二条", ID{Provision, "第12条"}, true},
		{"RBI/2025-26/252", ID{Document, "rbi/2025-26/252"}, true},
		{"RBI/2025-26/25", ID{Document, "rbi/2025-26/252"}, false},
	}
	for _, tt := range tests {
		if got := Holds(tt.text, tt.id); got != tt.want {
			t.Errorf("Holds(%q, %v) = %v, want %v", tt.text, tt.id, got, tt.want)
		}
	}
}

func TestNumber(t *testing.T) {
	for in, want := range map[string]string{"15,000": "15000", "1,50,000": "150000", "15 000": "15000", "2.5": "2.5", "1,5": "1.5", "100": "100"} {
		if got := number(in); got != want {
			t.Errorf("number(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMatcher(t *testing.T) {
	if NewMatcher(nil) != nil || NewMatcher(Find("the key rate")) != nil {
		t.Fatal("a query without identifiers needs no matcher")
	}
	m := NewMatcher(Find("What do Section 4(2)(b) and RBI/2025-26/252 say about Rs. 15,000 crore?"))
	if len(m.IDs()) != 3 {
		t.Fatalf("ids %v", m.IDs())
	}
	for _, tt := range []struct {
		text string
		want int
	}{
		{"SECTION 4 (2)(B) of the Act, per RBI/2025-26/252.", 2},
		{"a notified amount of ₹15 000 crore", 1},
		{"Section 4(2)(c); RBI/2025-26/253; Rs 1,500 crore", 0},
		{"nothing here", 0},
	} {
		if got := m.Count(tt.text); got != tt.want {
			t.Errorf("Count(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
	ru := NewMatcher(Find("что говорит статья 5 и пункт 3.1?"))
	if got := ru.Count("Согласно ст. 5 и Пункту 3.1 закона"); got != 2 {
		t.Errorf("Russian: %d of 2", got)
	}
	zh := NewMatcher(Find("第十二条规定了什么"))
	if got := zh.Count("依据第12条"); got != 1 {
		t.Errorf("Chinese: %d of 1", got)
	}
}

// BenchmarkMatcherScan is what an identifier question adds to a search: every allowed chunk
// read for the identifier (retrieve.exactMatches). 10,000 news-like chunks of ~1 KB, a few
// with digits and a provision word, one with the identifier.
func BenchmarkMatcherScan(b *testing.B) {
	base := "The central bank kept the key rate unchanged on Tuesday, citing inflation that stayed above its target for a third month, and said regulation of lenders would tighten. "
	texts := make([]string, 10000)
	for i := range texts {
		t := strings.Repeat(base, 6)
		switch {
		case i == 7000:
			t += "Regulation 15(7): an adviser shall not trade against its advice."
		case i%50 == 0:
			t += "Regulation 15(2) and section 7 apply from 2025."
		}
		texts[i] = t
	}
	m := NewMatcher(Ranking(Find("What does Regulation 15(7) of the Investment Advisers Regulations say?")))
	b.ResetTimer()
	for b.Loop() {
		n := 0
		for _, t := range texts {
			n += m.Count(t)
		}
		if n != 1 {
			b.Fatalf("%d texts hold it, want 1", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(texts)), "ns/chunk")
}
