package intent

import "testing"

// TestParseRomance: dates, periods, "latest", "since" and change in Spanish, French and
// Italian questions, as of 2024-05-15 (a Wednesday).
func TestParseRomance(t *testing.T) {
	const R, W, E = Recency, Window, Evolution
	if rd := Parse("comparar la inflación en 2021 y 2023", anchor); len(rd.Periods) != 2 {
		t.Errorf("comparar … en 2021 y 2023: periods %v, want 2021 and 2023", rd.Periods)
	}
	if rd := Parse("confrontare il PIL del 2019 e del 2022", anchor); len(rd.Periods) != 2 {
		t.Errorf("confrontare … del 2019 e del 2022: periods %v, want 2019 and 2022", rd.Periods)
	}
	checkForms(t, []form{
		// Spanish.
		{"es year", "¿Qué pasó en Libia en 2011?", "", W, "2011-01-01", "2011-12-31", false, false, cues("en 2011"), "¿Qué pasó en Libia?"},
		{"es month of year", "protestas en marzo de 2011", "", W, "2011-03-01", "2011-03-31", false, false, cues("en marzo de 2011"), "protestas"},
		{"es day", "el ataque del 17 de febrero de 2011", "", W, "2011-02-17", "2011-02-17", false, false, cues("17 de febrero de 2011"), "el ataque del"},
		{"es yearless month", "inflación en abril", "", W, "2024-04-01", "2024-04-30", false, false, cues("en abril"), "inflación"},
		{"es last week", "noticias de la semana pasada sobre el BCE", "", R, "2024-05-06", "2024-05-12", false, true, cues("la semana pasada"), "noticias de sobre el BCE"},
		{"es last year", "el PIB del año pasado", "", W, "2023-01-01", "2023-12-31", false, false, cues("año pasado"), "el PIB del"},
		{"es ago", "qué dijo hace dos años", "", R, "2021-11-14", "2022-11-13", false, false, cues("hace dos años"), "qué dijo hace dos años"},
		{"es since", "precios desde 2020", "", W, "2020-01-01", "2024-05-15", false, false, cues("desde 2020"), "precios"},
		{"es between", "entre 2019 y 2021 la deuda", "", W, "2019-01-01", "2021-12-31", false, false, cues("entre 2019 y 2021"), "la deuda"},
		{"es latest", "últimas noticias de Gaza", "", R, "", "", false, true, cues("últimas noticias"), "de Gaza"},
		{"es yesterday", "¿qué anunció ayer el banco?", "", R, "2024-05-14", "2024-05-14", false, true, cues("ayer"), "¿qué anunció el banco?"},
		{"es end of year", "a finales de 2019", "", W, "2019-09-01", "2019-12-31", false, false, cues("finales de 2019"), "a"},
		{"es change", "cómo ha cambiado la tasa de interés", "", E, "", "", false, false, cues("cómo", "cambiado"), "ha la tasa de interés"},
		{"es compared years", "comparar la inflación en 2021 y 2023", "", W, "2021-01-01", "2023-12-31", false, false, cues("en 2021", "y 2023"), "comparar la inflación"},
		{"es Mayo Clinic is no month", "in Mayo Clinic 2023 report", "", R, "", "", false, false, nil, "in Mayo Clinic 2023 report"},
		// French.
		{"fr month", "la guerre en mars 2011", "", W, "2011-03-01", "2011-03-31", false, false, cues("en mars 2011"), "la guerre"},
		{"fr day 1er", "le 1er mars 2011 à Benghazi", "", W, "2011-03-01", "2011-03-01", false, false, cues("le 1er mars 2011"), "à Benghazi"},
		{"fr last month", "le chômage le mois dernier", "", W, "2024-04-01", "2024-04-30", false, false, cues("le mois dernier"), "le chômage"},
		{"fr last days", "les 30 derniers jours", "", W, "2024-04-16", "2024-05-15", false, false, cues("les 30 derniers jours"), "les 30 derniers jours"},
		{"fr since", "les prix depuis 2019", "", W, "2019-01-01", "2024-05-15", false, false, cues("depuis 2019"), "les prix"},
		{"fr ago", "il y a trois mois", "", R, "2024-01-31", "2024-03-01", false, false, cues("il y a trois mois"), "il y a trois mois"},
		{"fr this year", "cette année la croissance", "", W, "2024-01-01", "2024-05-15", false, false, cues("cette année"), "la croissance"},
		{"fr latest", "dernières nouvelles de Kiev", "", R, "", "", false, true, cues("dernières nouvelles"), "de Kiev"},
		{"fr now", "qui dirige la BCE maintenant", "", R, "", "", false, true, cues("maintenant"), "qui dirige la BCE"},
		{"fr Mars 2020 is no month", "the Mars 2020 rover", "", R, "", "", false, false, nil, "the Mars 2020 rover"},
		// Italian.
		{"it year", "le elezioni nel 2018", "", W, "2018-01-01", "2018-12-31", false, false, cues("nel 2018"), "le elezioni"},
		{"it day", "il 17 febbraio 2011 a Bengasi", "", W, "2011-02-17", "2011-02-17", false, false, cues("il 17 febbraio 2011"), "a Bengasi"},
		{"it last year", "l'anno scorso il PIL", "", W, "2023-01-01", "2023-12-31", false, false, cues("l'anno scorso"), "il PIL"},
		{"it this year", "quest'anno l'inflazione", "", W, "2024-01-01", "2024-05-15", false, false, cues("quest'anno"), "l'inflazione"},
		{"it ago", "due anni fa", "", R, "2021-11-14", "2022-11-13", false, false, cues("due anni fa"), "due anni fa"},
		{"it last days", "gli ultimi 7 giorni", "", R, "2024-05-09", "2024-05-15", false, true, cues("gli ultimi 7 giorni"), "gli ultimi 7 giorni"},
		{"it since", "i prezzi dal 2020", "", W, "2020-01-01", "2024-05-15", false, false, cues("dal 2020"), "i prezzi"},
		{"it yesterday", "cosa è successo ieri", "", R, "2024-05-14", "2024-05-14", false, true, cues("ieri"), "cosa è successo"},
		{"it change", "come è cambiato il mercato", "", E, "", "", false, false, cues("come", "cambiato"), "è il mercato"},
		{"it now", "chi è il presidente adesso", "", R, "", "", false, true, cues("adesso"), "chi è il presidente"},
		// English stays as it was.
		{"en real estate", "real estate prices in May 2023", "", W, "2023-05-01", "2023-05-31", false, false, cues("in May 2023"), "real estate prices"},
	})
}
