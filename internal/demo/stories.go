package demo

// stories is the demo's news, in story order (not publication order). All people, places and
// companies are fictional. Facts a test relies on: the key rate is 6.50% until 2026-02-12,
// 7.25% until 2026-03-19, 8.00% until 2026-04-09, then 7.50% (and no document before
// 2026-04-09 mentions 7.50); Anna Keller is finance minister until Pavel Orlov is appointed on
// 2026-02-26.
var stories = []story{
	// --- Key rate -------------------------------------------------------------------------
	{
		day: "2026-01-08", topic: "key-rate", lang: "en", source: "nordavia-wire", reposts: 1,
		en: post{"Economists see Nordavia key rate on hold at 6.50%",
			"Economists expect the Central Bank of Nordavia to keep its key rate at 6.50% at the January 22 meeting. Most see inflation near 5.5% as too high for a cut but not high enough for a hike."},
		ru: post{"Экономисты ждут сохранения ключевой ставки на уровне 6,50%",
			"Экономисты ожидают, что Центральный банк Нордавии сохранит ключевую ставку на уровне 6,50% на заседании 22 января. По мнению большинства, инфляция около 5,5% слишком высока для снижения, но недостаточна для повышения."},
	},
	{
		day: "2026-01-22", topic: "key-rate", lang: "en", source: "cbn-press", reposts: 2, trReposts: 1,
		en: post{"Central Bank of Nordavia keeps key rate at 6.50%",
			"The Central Bank of Nordavia kept its key rate at 6.50% on Thursday. Governor Ilse Marten said inflation risks remain elevated and the board is ready to raise the rate if prices keep accelerating."},
		alt: post{"Nordavia holds key rate at 6.50%, warns of inflation risks",
			"The Central Bank of Nordavia left its key rate unchanged at 6.50% on Thursday. Governor Ilse Marten said inflation risks remain elevated and the board is ready to raise the rate if prices keep accelerating."},
		ru: post{"ЦБ Нордавии сохранил ключевую ставку на уровне 6,50%",
			"Центральный банк Нордавии в четверг сохранил ключевую ставку на уровне 6,50%. Глава банка Ильзе Мартен заявила, что инфляционные риски остаются повышенными и совет готов повысить ставку, если рост цен продолжит ускоряться."},
	},
	{
		day: "2026-01-23", topic: "key-rate", lang: "en", source: "capital-daily",
		en: post{"Krona steady, mortgage rates unchanged after rate hold",
			"The krona traded flat against the euro after the central bank held its key rate at 6.50%. Nordavian banks said mortgage rates would stay near 8.6% for now."},
	},
	{
		day: "2026-02-03", topic: "key-rate", lang: "ru", source: "vesti-nordavia", reposts: 1,
		ru: post{"Инфляция в Нордавии ускорилась до 5,9%",
			"Годовая инфляция в Нордавии в январе ускорилась до 5,9%, максимума за два года. Аналитики считают, что это повышает шансы на повышение ключевой ставки в феврале."},
		en: post{"Nordavia inflation accelerates to 5.9%",
			"Annual inflation in Nordavia accelerated to 5.9% in January, a two-year high. Analysts say this raises the chance of a key rate hike in February."},
	},
	{
		day: "2026-02-09", topic: "key-rate", lang: "en", source: "nordavia-wire", reposts: 1,
		en: post{"Analysts expect Nordavia rate hike this week",
			"Most analysts expect the Central Bank of Nordavia to raise its key rate from 6.50% on February 12. Forecasts range from 7.00% to 7.25% after January inflation hit 5.9%."},
		ru: post{"Аналитики ждут повышения ключевой ставки на этой неделе",
			"Большинство аналитиков ожидают, что Центральный банк Нордавии 12 февраля повысит ключевую ставку с 6,50%. Прогнозы варьируются от 7,00% до 7,25% после того, как инфляция в январе достигла 5,9%."},
	},
	{
		day: "2026-02-12", topic: "key-rate", lang: "en", source: "cbn-press", reposts: 2, trReposts: 1,
		en: post{"Central Bank of Nordavia raises key rate to 7.25%",
			"The Central Bank of Nordavia raised its key rate to 7.25% from 6.50% on Thursday, a larger step than most analysts expected. Governor Ilse Marten said the hike is needed to bring inflation back to the 4% target."},
		alt: post{"Nordavia hikes key rate by 75 basis points to 7.25%",
			"The Central Bank of Nordavia lifted its key rate to 7.25% from 6.50% on Thursday, a bigger move than most analysts expected. Governor Ilse Marten said the hike is needed to bring inflation back to the 4% target."},
		ru: post{"Центральный банк Нордавии повысил ключевую ставку до 7,25%",
			"Центральный банк Нордавии в четверг повысил ключевую ставку с 6,50% до 7,25%, сильнее, чем ожидало большинство аналитиков. Глава банка Ильзе Мартен заявила, что повышение необходимо для возвращения инфляции к цели 4%."},
	},
	{
		day: "2026-02-13", topic: "key-rate", lang: "en", source: "nordavia-wire", reposts: 1,
		en: post{"Krona strengthens after surprise rate hike",
			"The Nordavian krona rose 1.2% against the euro after the central bank raised its key rate to 7.25%. Traders said the larger-than-expected hike caught short positions off guard."},
		ru: post{"Крона укрепилась после неожиданного повышения ставки",
			"Нордавская крона подорожала на 1,2% к евро после того, как центральный банк повысил ключевую ставку до 7,25%. По словам трейдеров, более сильное, чем ожидалось, повышение застало врасплох игроков на понижение."},
	},
	{
		day: "2026-02-16", topic: "key-rate", lang: "ru", source: "tg:@nordavia_ru", reposts: 1,
		ru: post{"Банки Нордавии повышают ставки по ипотеке",
			"Крупнейшие банки Нордавии повысили ставки по ипотеке в среднем до 9,4% вслед за повышением ключевой ставки до 7,25%. Риелторы ожидают снижения спроса на жильё весной."},
		en: post{"Nordavian banks raise mortgage rates",
			"Nordavia's largest banks raised mortgage rates to 9.4% on average after the key rate hike to 7.25%. Estate agents expect housing demand to slow in spring."},
	},
	{
		day: "2026-03-04", topic: "key-rate", lang: "en", source: "nordavia-wire", reposts: 1,
		en: post{"Nordavia inflation hits 6.4%, governor hints at more tightening",
			"Annual inflation in Nordavia rose to 6.4% in February. Governor Ilse Marten said the key rate of 7.25% may not be enough and the board will consider another hike in March."},
		ru: post{"Инфляция в Нордавии достигла 6,4%",
			"Годовая инфляция в Нордавии в феврале выросла до 6,4%. Глава ЦБ Ильзе Мартен заявила, что ключевой ставки 7,25% может быть недостаточно и в марте совет рассмотрит новое повышение."},
	},
	{
		day: "2026-03-16", topic: "key-rate", lang: "en", source: "capital-daily",
		en: post{"Economists expect key rate at 8.00% after March meeting",
			"Economists polled by Capital Daily expect the Central Bank of Nordavia to raise its key rate to 8.00% from 7.25% on March 19. A minority sees a smaller step to 7.75%."},
	},
	{
		day: "2026-03-19", topic: "key-rate", lang: "en", source: "cbn-press", reposts: 2, trReposts: 1,
		en: post{"Central Bank of Nordavia raises key rate to 8.00%",
			"The Central Bank of Nordavia raised its key rate to 8.00% from 7.25% on Thursday, the highest level in a decade. Governor Ilse Marten said the board will keep policy tight until inflation clearly slows."},
		alt: post{"Nordavia lifts key rate to 8.00%, highest in a decade",
			"The Central Bank of Nordavia lifted its key rate to 8.00% from 7.25% on Thursday, its highest level in a decade. Governor Ilse Marten said the board will keep policy tight until inflation clearly slows."},
		ru: post{"ЦБ Нордавии повысил ключевую ставку до 8,00%",
			"Центральный банк Нордавии в четверг повысил ключевую ставку с 7,25% до 8,00%, максимального уровня за десять лет. Глава банка Ильзе Мартен заявила, что денежно-кредитная политика останется жёсткой, пока инфляция явно не замедлится."},
	},
	{
		day: "2026-03-20", topic: "key-rate", lang: "ru", source: "vesti-nordavia", reposts: 1,
		ru: post{"Крона достигла максимума за полгода",
			"Нордавская крона укрепилась до максимума за шесть месяцев после повышения ключевой ставки до 8,00%. Экспортёры жалуются, что сильная валюта снижает их выручку."},
		en: post{"Krona hits six-month high after hike to 8.00%",
			"The Nordavian krona climbed to a six-month high after the key rate was raised to 8.00%. Exporters complain that the strong currency is cutting their revenue."},
	},
	{
		day: "2026-03-23", topic: "key-rate", lang: "en", source: "capital-daily", reposts: 1,
		en: post{"Mortgage rates top 10% in Nordavia",
			"Average mortgage rates in Nordavia rose above 10% after the key rate hike to 8.00%. Home sales in the first three weeks of March fell 18% from a year earlier, the national realtors' association said."},
		ru: post{"Ставки по ипотеке в Нордавии превысили 10%",
			"Средние ставки по ипотеке в Нордавии превысили 10% после повышения ключевой ставки до 8,00%. По данным национальной ассоциации риелторов, продажи жилья за первые три недели марта упали на 18% год к году."},
	},
	{
		day: "2026-03-30", topic: "key-rate", lang: "en", source: "nordavia-wire", reposts: 1,
		en: post{"Governor: key rate has peaked, markets bet on April cut",
			"Governor Ilse Marten said the key rate of 8.00% is likely the peak of the cycle. Markets now price a cut at the April 9 meeting, but the bank gave no signal on its size."},
		ru: post{"Глава ЦБ: ключевая ставка достигла пика",
			"Глава ЦБ Нордавии Ильзе Мартен заявила, что ключевая ставка 8,00%, скорее всего, достигла пика цикла. Рынки закладывают снижение на заседании 9 апреля, однако банк не дал сигналов о его масштабе."},
	},
	// After the anchor: must never reach a demo answer.
	{
		day: "2026-04-06", topic: "key-rate", lang: "en", source: "nordavia-wire",
		en: post{"Nordavia inflation slows to 5.1%, rate cut expected",
			"Annual inflation in Nordavia slowed to 5.1% in March. Most economists now expect the central bank to cut its key rate from 8.00% on April 9."},
	},
	{
		day: "2026-04-09", topic: "key-rate", lang: "en", source: "cbn-press", reposts: 2, trReposts: 1,
		en: post{"Central Bank of Nordavia cuts key rate to 7.50%",
			"The Central Bank of Nordavia cut its key rate to 7.50% from 8.00% on Thursday, the first cut in two years. Governor Ilse Marten said slowing inflation allows a more cautious stance."},
		alt: post{"Nordavia lowers key rate to 7.50% as inflation slows",
			"The Central Bank of Nordavia lowered its key rate to 7.50% from 8.00% on Thursday, its first cut in two years. Governor Ilse Marten said slowing inflation allows a more cautious stance."},
		ru: post{"ЦБ Нордавии снизил ключевую ставку до 7,50%",
			"Центральный банк Нордавии в четверг снизил ключевую ставку с 8,00% до 7,50%, впервые за два года. Глава банка Ильзе Мартен заявила, что замедление инфляции позволяет смягчить политику."},
	},
	{
		day: "2026-04-10", topic: "key-rate", lang: "ru", source: "tg:@nordavia_ru",
		ru: post{"Крона ослабла после снижения ставки",
			"Нордавская крона подешевела на 0,8% к евро после снижения ключевой ставки до 7,50%. Банки обещают снизить ставки по ипотеке в ближайшие недели."},
		en: post{"Krona weakens after rate cut",
			"The Nordavian krona fell 0.8% against the euro after the key rate was cut to 7.50%. Banks promised to lower mortgage rates in the coming weeks."},
	},

	// --- Finance minister -----------------------------------------------------------------
	{
		day: "2026-01-14", topic: "minister", lang: "en", source: "nordavia-wire", reposts: 1,
		en: post{"Finance Minister Keller sets 2.5% deficit target",
			"Finance Minister Anna Keller said Nordavia will keep the 2026 budget deficit at 2.5% of GDP. She ruled out new tax increases this year."},
		ru: post{"Министр финансов Келлер обозначила цель по дефициту в 2,5%",
			"Министр финансов Анна Келлер заявила, что Нордавия удержит дефицит бюджета в 2026 году на уровне 2,5% ВВП. Она исключила повышение налогов в этом году."},
	},
	{
		day: "2026-02-05", topic: "minister", lang: "ru", source: "vesti-nordavia",
		ru: post{"Келлер поддержала курс центрального банка",
			"Министр финансов Нордавии Анна Келлер поддержала борьбу центрального банка с инфляцией и пообещала не увеличивать расходы бюджета."},
		en: post{"Keller backs central bank's inflation fight",
			"Nordavia's Finance Minister Anna Keller backed the central bank's fight against inflation and promised no increase in budget spending."},
	},
	{
		day: "2026-02-19", topic: "minister", lang: "en", source: "tg:@nordfinance", reposts: 1,
		en: post{"Rumours: Finance Minister Keller may step down",
			"Sources in the ruling coalition say Finance Minister Anna Keller may resign after a dispute over defence spending. Deputy finance minister Pavel Orlov is named as a possible successor."},
		ru: post{"Слухи: министр финансов Келлер может уйти в отставку",
			"Источники в правящей коалиции сообщают, что министр финансов Анна Келлер может уйти в отставку после спора о расходах на оборону. Возможным преемником называют заместителя министра финансов Павла Орлова."},
	},
	{
		day: "2026-02-25", topic: "minister", lang: "en", source: "nordavia-wire", reposts: 1, trReposts: 1,
		en: post{"Finance Minister Anna Keller resigns",
			"Nordavia's Finance Minister Anna Keller resigned, citing disagreements within the coalition over the budget. Prime Minister Tomas Brenner said a successor will be named on Thursday."},
		ru: post{"Министр финансов Анна Келлер ушла в отставку",
			"Министр финансов Нордавии Анна Келлер ушла в отставку, сославшись на разногласия в коалиции по бюджету. Премьер-министр Томас Бреннер заявил, что преемник будет назван в четверг."},
	},
	{
		day: "2026-02-26", topic: "minister", lang: "en", source: "gov-nordavia", reposts: 2, trReposts: 1,
		en: post{"Pavel Orlov appointed finance minister",
			"Prime Minister Tomas Brenner appointed Pavel Orlov as Nordavia's new finance minister, replacing Anna Keller. Orlov, 48, has served as deputy finance minister since 2023."},
		alt: post{"Orlov replaces Keller as Nordavia's finance minister",
			"Pavel Orlov was appointed Nordavia's new finance minister by Prime Minister Tomas Brenner, replacing Anna Keller. Orlov, 48, has served as deputy finance minister since 2023."},
		ru: post{"Павел Орлов назначен министром финансов",
			"Премьер-министр Томас Бреннер назначил Павла Орлова новым министром финансов Нордавии вместо Анны Келлер. 48-летний Орлов с 2023 года занимал пост заместителя министра финансов."},
	},
	{
		day: "2026-02-27", topic: "minister", lang: "en", source: "capital-daily", reposts: 1,
		en: post{"New finance minister Orlov pledges fiscal discipline",
			"In his first statement, Finance Minister Pavel Orlov pledged to keep the deficit target of 2.5% and said he fully supports the central bank's fight against inflation."},
		ru: post{"Новый министр финансов Орлов пообещал бюджетную дисциплину",
			"В первом заявлении министр финансов Павел Орлов пообещал сохранить цель по дефициту в 2,5% и заявил, что полностью поддерживает борьбу центрального банка с инфляцией."},
	},
	{
		day: "2026-03-12", topic: "minister", lang: "ru", source: "vesti-nordavia", reposts: 1,
		ru: post{"Орлов объявил пересмотр бюджетных расходов",
			"Министр финансов Павел Орлов объявил пересмотр расходов бюджета, который должен сэкономить 1,5 млрд крон. Под сокращение могут попасть субсидии и инфраструктурные проекты."},
		en: post{"Orlov announces spending review",
			"Finance Minister Pavel Orlov announced a review of budget spending meant to save 1.5 billion krona. Subsidies and infrastructure projects may be cut."},
	},

	// --- Lindholm bridge ------------------------------------------------------------------
	{
		day: "2026-01-08", topic: "bridge", lang: "en", source: "capital-daily",
		en: post{"Lindholm bridge 70% complete, opening set for June",
			"Construction of the Lindholm bridge across the Vessel Sound is 70% complete, the contractor Kestrel Works said. The bridge is due to open to traffic in June 2026."},
		ru: post{"Мост Линдхольм готов на 70%",
			"Строительство моста Линдхольм через пролив Вессель завершено на 70%, сообщил подрядчик Kestrel Works. Мост планируется открыть для движения в июне 2026 года."},
	},
	{
		day: "2026-01-27", topic: "bridge", lang: "en", source: "nordavia-wire", reposts: 1,
		en: post{"Steel delays threaten Lindholm bridge schedule",
			"Late steel deliveries have put the June opening of the Lindholm bridge at risk, the transport ministry said. Two of the remaining five spans are still waiting for girders."},
	},
	{
		day: "2026-02-17", topic: "bridge", lang: "ru", source: "vesti-nordavia", reposts: 1,
		ru: post{"Стоимость моста Линдхольм выросла до 2,4 млрд крон",
			"Смета строительства моста Линдхольм выросла с 1,9 до 2,4 млрд крон из-за подорожания стали и задержек поставок. Министерство транспорта запросит дополнительное финансирование."},
		en: post{"Lindholm bridge cost rises to 2.4 billion krona",
			"The cost of the Lindholm bridge has risen from 1.9 to 2.4 billion krona because of higher steel prices and delivery delays. The transport ministry will ask for extra funding."},
	},
	{
		day: "2026-03-10", topic: "bridge", lang: "en", source: "nordavia-wire", reposts: 1,
		en: post{"Lindholm bridge opening moved to October",
			"The opening of the Lindholm bridge has been moved from June to October 2026, the transport ministry said, citing steel delays and the cost review."},
		ru: post{"Открытие моста Линдхольм перенесено на октябрь",
			"Открытие моста Линдхольм перенесено с июня на октябрь 2026 года, сообщило министерство транспорта, сославшись на задержки поставок стали и пересмотр сметы."},
	},
	{
		day: "2026-03-24", topic: "bridge", lang: "en", source: "capital-daily",
		en: post{"Parliament approves extra funds for Lindholm bridge",
			"Parliament approved an extra 0.5 billion krona for the Lindholm bridge, bringing its budget to 2.4 billion. The October opening date was confirmed."},
		ru: post{"Парламент одобрил дополнительное финансирование моста Линдхольм",
			"Парламент одобрил дополнительные 0,5 млрд крон на строительство моста Линдхольм, доведя его бюджет до 2,4 млрд. Дата открытия в октябре подтверждена."},
	},
	{
		day: "2026-04-14", topic: "bridge", lang: "en", source: "nordavia-wire", reposts: 1,
		en: post{"Lindholm bridge opening postponed to 2027",
			"The Lindholm bridge will not open before spring 2027 after inspectors found defects in two spans, the transport ministry said."},
		ru: post{"Открытие моста Линдхольм отложено до 2027 года",
			"Мост Линдхольм не откроется раньше весны 2027 года: инспекторы обнаружили дефекты в двух пролётах, сообщило министерство транспорта."},
	},

	// --- Grain harvest --------------------------------------------------------------------
	{
		day: "2026-01-20", topic: "harvest", lang: "ru", source: "vesti-nordavia", reposts: 1,
		ru: post{"Озимые в хорошем состоянии, прогноз урожая — 4,2 млн тонн",
			"Министерство сельского хозяйства Нордавии сообщило, что озимые зерновые находятся в хорошем состоянии. Прогноз урожая зерна на 2026 год составляет 4,2 млн тонн."},
		en: post{"Winter crops in good shape, grain forecast at 4.2 million tonnes",
			"Nordavia's agriculture ministry said winter grain crops are in good condition. The 2026 grain harvest is forecast at 4.2 million tonnes."},
	},
	{
		day: "2026-02-24", topic: "harvest", lang: "ru", source: "tg:@nordavia_ru", reposts: 1,
		ru: post{"Малоснежная зима грозит засухой",
			"Снежный покров в зерновых регионах Нордавии вдвое ниже нормы. Агрономы предупреждают о риске весенней засухи и потерь урожая."},
		en: post{"Low snow cover raises drought risk",
			"Snow cover in Nordavia's grain regions is half the normal level. Agronomists warn of a spring drought and crop losses."},
	},
	{
		day: "2026-03-05", topic: "harvest", lang: "ru", source: "vesti-nordavia", reposts: 1,
		ru: post{"Прогноз урожая зерна снижен до 3,8 млн тонн",
			"Министерство сельского хозяйства снизило прогноз урожая зерна с 4,2 до 3,8 млн тонн из-за сухой зимы. Больше всего пострадали южные регионы."},
		en: post{"Grain harvest forecast cut to 3.8 million tonnes",
			"The agriculture ministry cut its grain harvest forecast from 4.2 to 3.8 million tonnes because of the dry winter. The southern regions are hit hardest."},
	},
	{
		day: "2026-03-26", topic: "harvest", lang: "en", source: "nordavia-wire", trReposts: 1,
		en: post{"Drought delays spring sowing, forecast cut to 3.6 million tonnes",
			"Spring sowing in Nordavia is two weeks behind schedule because of drought. The agriculture ministry cut its grain forecast to 3.6 million tonnes and promised irrigation subsidies."},
		ru: post{"Засуха задерживает весенний сев, прогноз снижен до 3,6 млн тонн",
			"Весенний сев в Нордавии отстаёт от графика на две недели из-за засухи. Министерство сельского хозяйства снизило прогноз урожая зерна до 3,6 млн тонн и пообещало субсидии на орошение."},
	},
	{
		day: "2026-04-07", topic: "harvest", lang: "ru", source: "vesti-nordavia",
		ru: post{"Дожди улучшили прогноз урожая",
			"Обильные дожди в начале апреля ослабили засуху. Министерство сельского хозяйства повысило прогноз урожая зерна до 3,9 млн тонн."},
		en: post{"Rains lift grain forecast to 3.9 million tonnes",
			"Heavy rains in early April eased the drought. The agriculture ministry raised its grain harvest forecast to 3.9 million tonnes."},
	},

	// --- Filler: what retrieval should reject ---------------------------------------------
	{
		day: "2026-01-05", topic: "misc", lang: "en", source: "capital-daily",
		en: post{"Snowstorm closes roads in northern Nordavia",
			"A heavy snowstorm closed several roads in northern Nordavia and delayed trains between Varby and the capital. Crews expect to clear the main routes by evening."},
	},
	{
		day: "2026-01-11", topic: "misc", lang: "ru", source: "tg:@sever_novosti",
		ru: post{"Хоккейная сборная Нордавии обыграла Остмарк",
			"Хоккейная сборная Нордавии обыграла команду Остмарка со счётом 4:2 в товарищеском матче перед весенним турниром."},
	},
	{
		day: "2026-01-17", topic: "misc", lang: "en", source: "capital-daily",
		en: post{"Film festival opens with record ticket sales",
			"The Nordavia Film Festival opened in the capital with a record 42,000 tickets sold. The opening film is a drama about fishermen on the western coast."},
		ru: post{"Кинофестиваль открылся с рекордными продажами билетов",
			"Кинофестиваль Нордавии открылся в столице с рекордными 42 тысячами проданных билетов. Фильм открытия — драма о рыбаках западного побережья."},
	},
	{
		day: "2026-01-25", topic: "misc", lang: "en", source: "tg:@nordavia_news",
		en: post{"Nordavian novelist wins northern literature prize",
			"Novelist Maren Oskarsdal won the Northern Literature Prize for \"The Salt Winter\", a family saga set on the western coast."},
	},
	{
		day: "2026-01-29", topic: "misc", lang: "en", source: "nordavia-wire",
		en: post{"Tram line 4 starts service",
			"Tram line 4 in the capital started carrying passengers, linking the central station with the university campus in 14 minutes."},
	},
	{
		day: "2026-02-02", topic: "misc", lang: "ru", source: "tg:@nordavia_ru",
		ru: post{"Музей современного искусства открылся после реконструкции",
			"Музей современного искусства в столице Нордавии вновь открылся после трёхлетней реконструкции. В первый день его посетили более шести тысяч человек."},
	},
	{
		day: "2026-02-07", topic: "misc", lang: "en", source: "tg:@nordavia_news",
		en: post{"Nordavia wins ski relay bronze",
			"Nordavia's women's team won bronze in the 4x5 km ski relay at the northern championship in Eskerby."},
	},
	{
		day: "2026-02-14", topic: "misc", lang: "en", source: "capital-daily",
		en: post{"Rose prices jump 30% for Valentine's Day",
			"Florists in Nordavia say rose prices rose 30% this year because of higher heating costs in greenhouses."},
	},
	{
		day: "2026-02-21", topic: "misc", lang: "ru", source: "vesti-nordavia",
		ru: post{"Фестиваль льда собрал рекордное число гостей",
			"Фестиваль ледяных скульптур в Варбю посетили 80 тысяч человек, на десять тысяч больше, чем в прошлом году."},
	},
	{
		day: "2026-03-01", topic: "misc", lang: "en", source: "tg:@nordavia_news", reposts: 1,
		en: post{"Varby United top the league",
			"Varby United beat Capital City 2:1 and moved to the top of the Nordavian football league after the winter break."},
	},
	{
		day: "2026-03-07", topic: "misc", lang: "en", source: "nordavia-wire",
		en: post{"Warmest early March day on record",
			"Temperatures in the capital reached 14°C, the warmest early March day on record, the weather service said."},
	},
	{
		day: "2026-03-13", topic: "misc", lang: "ru", source: "vesti-nordavia",
		ru: post{"Национальная опера представила новый сезон",
			"Национальная опера Нордавии представила программу нового сезона: пять премьер, включая оперу по мотивам северных саг."},
	},
	{
		day: "2026-03-18", topic: "misc", lang: "en", source: "capital-daily",
		en: post{"Teenager wins Eskerby chess open",
			"Sixteen-year-old Lina Varga won the Eskerby International Open, becoming the youngest champion in the tournament's history."},
	},
	{
		day: "2026-03-22", topic: "misc", lang: "en", source: "nordavia-wire",
		en: post{"Storm winds cancel ferry crossings",
			"Storm winds of up to 25 m/s cancelled ferry crossings to the western islands, the port authority said."},
	},
	{
		day: "2026-03-27", topic: "misc", lang: "ru", source: "tg:@sever_novosti", reposts: 1,
		ru: post{"Хоккейная сборная Нордавии вышла в финал",
			"Хоккейная сборная Нордавии вышла в финал весеннего турнира, обыграв в полуфинале команду Остмарка со счётом 3:1."},
	},
	{
		day: "2026-03-28", topic: "misc", lang: "en", source: "tg:@nordavia_news",
		en: post{"Clocks go forward tonight",
			"Clocks go forward one hour tonight as Nordavia switches to summer time. Trains will run to the summer timetable from Sunday."},
	},
	{
		day: "2026-04-02", topic: "misc", lang: "en", source: "capital-daily",
		en: post{"National library puts medieval maps online",
			"The National Library of Nordavia put 1,200 digitised medieval maps online, free for everyone."},
	},
	{
		day: "2026-04-04", topic: "misc", lang: "ru", source: "vesti-nordavia",
		ru: post{"Весенний марафон собрал 12 тысяч бегунов",
			"Более 12 тысяч бегунов приняли участие в весеннем марафоне в столице Нордавии. Победитель преодолел дистанцию за 2 часа 11 минут."},
	},
	{
		day: "2026-04-11", topic: "misc", lang: "en", source: "nordavia-wire",
		en: post{"Varby United knocked out of the cup",
			"Varby United lost 0:1 to Eskerby in the cup quarter-final, ending their hopes of a double."},
	},
	{
		day: "2026-04-13", topic: "misc", lang: "en", source: "capital-daily",
		en: post{"Cherry trees bloom early in the capital",
			"Cherry trees in the capital's Royal Park are in full bloom, a week earlier than usual."},
	},
}
