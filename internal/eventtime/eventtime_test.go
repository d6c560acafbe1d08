package eventtime

import (
	"strings"
	"testing"
	"time"
)

func d(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

// pub is a Friday.
var pub = time.Date(2011, 2, 18, 9, 30, 0, 0, time.UTC)

func TestMentions(t *testing.T) {
	cases := []struct {
		name, lang, text string
		want             []string // days, then "~" for relative; the text named, after "="
	}{
		{"es date with year", "es", "El 17 de febrero de 2011 estalló la revuelta.", []string{"2011-02-17=17 de febrero de 2011"}},
		{"es date without year", "es", "Las protestas del 15 de febrero en Bengasi", []string{"2011-02-15~=15 de febrero"}},
		{"es yesterday, today", "es", "Ayer murieron 20 personas y hoy sigue la represión.", []string{"2011-02-17~=Ayer", "2011-02-18~=hoy"}},
		{"es mañana is morning after esta", "es", "Esta mañana hubo disparos; mañana habrá otra marcha.", []string{"2011-02-19~=mañana"}},
		{"es weekday", "es", "El jueves se celebró el Día de la Ira.", []string{"2011-02-17~=jueves"}},
		{"es next weekday", "es", "El próximo lunes se reúne la ONU.", []string{"2011-02-21~=próximo lunes"}},
		{"es last weekday", "es", "El lunes pasado hubo 38 heridos.", []string{"2011-02-14~=lunes pasado"}},
		{"es weekday before its date", "es", "Jueves 17/02/2011. Actualizado 10:23h.", []string{"2011-02-17=17/02/2011"}},
		{"es a habit is no day", "es", "Los viernes hay oración.", nil},
		{"es anteayer", "es", "Anteayer y antes de ayer", []string{"2011-02-16~=Anteayer", "2011-02-16~=antes de ayer"}},
		{"es december in a january text", "es", "el 20 de diciembre", nil}, // replaced below with a January publication
		{"fr date", "fr", "Le 15 février 2011, à Benghazi", []string{"2011-02-15=15 février 2011"}},
		{"fr 1er", "fr", "depuis le 1er mars", []string{"2011-03-01~=1er mars"}},
		{"fr yesterday", "fr", "Hier soir, aujourd'hui et avant-hier", []string{"2011-02-17~=Hier", "2011-02-18~=aujourd'hui", "2011-02-16~=avant-hier"}},
		{"fr weekday last", "fr", "Lundi dernier, Kadhafi a parlé. Mercredi, il a menacé.", []string{"2011-02-14~=Lundi dernier", "2011-02-16~=Mercredi"}},
		{"fr demain", "fr", "La réunion aura lieu demain.", []string{"2011-02-19~=demain"}},
		{"it date", "it", "Il 17 febbraio 2011 a Bengasi", []string{"2011-02-17=17 febbraio 2011"}},
		{"it yesterday", "it", "Ieri sera e l'altro ieri, oggi", []string{"2011-02-17~=Ieri", "2011-02-16~=l'altro ieri", "2011-02-18~=oggi"}},
		{"it weekday scorso", "it", "lunedì scorso e giovedì", []string{"2011-02-14~=lunedì scorso", "2011-02-17~=giovedì"}},
		{"it weekday before date", "it", "tra venerdì 18 e lunedì 21 febbraio 2011", []string{"2011-02-18~=venerdì 18", "2011-02-21=21 febbraio 2011"}},
		{"en dates", "en", "On February 17, 2011 and on Feb. 15 protesters met; March 3rd was calm.", []string{"2011-02-17=February 17, 2011", "2011-02-15~=Feb. 15", "2011-03-03~=March 3rd"}},
		{"en day first", "en", "the 17th of February and 5 March 2011", []string{"2011-02-17~=17th of February", "2011-03-05=5 March 2011"}},
		{"en modal may", "en", "Section 3 may apply; on 3 May they met.", []string{"2011-05-03~=3 May"}},
		{"en relative", "en", "Yesterday, the day before yesterday, and on Tuesday", []string{"2011-02-17~=Yesterday", "2011-02-16~=day before yesterday", "2011-02-15~=Tuesday"}},
		{"en next and last", "en", "next Monday; last Friday; every Sunday", []string{"2011-02-21~=next Monday", "2011-02-11~=last Friday"}},
		{"en numeric month first", "en", "filed 02/17/2011", []string{"2011-02-17=02/17/2011"}},
		{"iso", "en", "published 2011-02-17 at noon", []string{"2011-02-17=2011-02-17"}},
		{"no phone numbers", "en", "call 12-05-2011-44 or 1.2.2011.5", nil},
		{"ru date", "ru", "17 февраля 2011 года в Бенгази", []string{"2011-02-17=17 февраля 2011 года"}},
		{"ru relative", "ru", "Вчера и в прошлую пятницу, в среду", []string{"2011-02-17~=Вчера", "2011-02-11~=прошлую пятницу", "2011-02-16~=среду"}},
		{"ru numeric", "ru", "от 15.02.2011", []string{"2011-02-15=15.02.2011"}},
		{"zh date", "zh", "2011年2月17日，班加西", []string{"2011-02-17=2011年2月17日"}},
		{"zh yearless", "zh", "2月15号爆发抗议", []string{"2011-02-15~=2月15号"}},
		{"zh relative", "zh", "昨天和上周三，周一", []string{"2011-02-17~=昨天", "2011-02-09~=上周三", "2011-02-14~=周一"}},
		{"no date", "es", "La ONU aprobó la resolución 1973 con 10 votos.", nil},
		{"impossible day", "es", "el 31 de febrero", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, m := range Mentions(c.text, pub, c.lang) {
				g := m.Day.Format("2006-01-02")
				if m.Relative {
					g += "~"
				}
				got = append(got, g+"="+c.text[m.Start:m.End])
			}
			if c.name == "es december in a january text" {
				got = nil
				for _, m := range Mentions(c.text, d("2011-01-10"), c.lang) {
					got = append(got, m.Day.Format("2006-01-02"))
				}
				if strings.Join(got, ",") != "2010-12-20" {
					t.Fatalf("got %v, want 2010-12-20", got)
				}
				return
			}
			if strings.Join(got, " | ") != strings.Join(c.want, " | ") {
				t.Errorf("%q\n got  %q\n want %q", c.text, got, c.want)
			}
		})
	}
}

func TestFuture(t *testing.T) {
	ms := Mentions("mañana y ayer", pub, "es")
	if len(ms) != 2 || !ms[0].Future(pub) || ms[1].Future(pub) {
		t.Fatalf("%+v", ms)
	}
}
