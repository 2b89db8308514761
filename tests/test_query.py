"""A question read once: its names, identifiers, the kind of answer it asks for, and numbers in ranges."""

from __future__ import annotations

import pytest

from chalicelib.models.api import RetrieveRequest
from chalicelib.question import answer_kinds, ranges
from chalicelib.question.query import identifiers, names, understand
from chalicelib.text import fold


def test_names_are_capitalised_words_inside_a_sentence():
    assert names("¿Cuánto tarda un envío al Reino Unido?") == ("Reino Unido",)
    assert names("¿Venden cápsulas compatibles con Nespresso?") == ("Nespresso",)
    # not the first word, not acronyms that change across languages, not weekdays, not hyphenated tails
    assert names("What are the café's opening hours on Saturdays? POS error") == ()
    assert names("Who was one prominent Huguenot-descended arms manufacturer?") == ("Huguenot",)


def test_identifiers_are_codes_not_words_or_measures():
    found = identifiers(
        "TRM-4093, CN-RWA-NYA, reorder_point, labelFormatFor, export_invoices.sh, 2.20.0, tok042x"
    )
    assert found == (
        "TRM-4093",
        "CN-RWA-NYA",
        "reorder_point",
        "labelFormatFor",
        "export_invoices.sh",
        "2.20.0",
        "tok042x",
    )
    assert identifiers("a 2-point conversion in the 1700s, 24-yard line, 5.000 €, 15th century") == ()


@pytest.mark.parametrize(
    ("question", "lang", "kind"),
    [
        ("¿Cuánto cuesta el plan Business en España?", "es", "amount"),
        ("How much does the espresso machine cost?", "en", "amount"),
        ("How much caffeine is in the decaf?", "en", "count"),
        ("¿Cuánto tiempo guardáis los datos de mis pedidos?", "es", "time"),
        ("¿Cuántos días de vacaciones tengo?", "es", "count"),
        ("Where do I go when the fire alarm rings?", "en", "place"),  # the first interrogative decides
        ("¿Quién aprueba una compra de 5.000 €?", "es", "person"),
        ("¿Me cobráis algo si dejo la suscripción?", "es", None),  # yes or no: no particular kind
        ("Is there a minimum top-up for the prepaid balance?", "en", None),
        ("¿Qué significa el error TRM-4093?", "es", None),
        ("When did the last glacial end?", "en", "time"),
        ("¿Cuándo se descubrió el plastoma?", "es", "time"),
        # "when" joining a clause asks for no time: another question word stands before it, or the
        # question follows its clause after a comma
        ("What happens when the immune system is less active than normal?", "en", None),
        ("When many people are arrested, what is a common tactic?", "en", None),
        ("¿Qué hace el Doctor cuando su cuerpo está dañado?", "es", None),
        ("Cuando se detiene a mucha gente, ¿cuál es una táctica común?", "es", None),
        ("Who was president when the war began?", "en", "person"),
        # a phone number, an extension or an address to write to; a phone the company hands out is a thing
        ("teléfono recepción planta Monterrey", "es", "contact"),
        ("¿A qué extensión llamo para desbloquear mi cuenta?", "es", "contact"),
        ("What is the phone number of the Valencia plant?", "en", "contact"),
        ("What phone do plant supervisors get?", "en", None),
        ("How do I change the email on my account?", "en", None),
        # opening hours are asked for; "outside opening hours" only says when the steps apply
        ("¿Cuál es el horario de la clínica de Málaga?", "es", "time"),
        ("¿Qué pasos hay que seguir en una urgencia dental fuera de horario?", "es", None),
        ("O que devo fazer fora do horário?", "pt", None),
    ],
)
def test_the_kind_of_answer_a_question_asks_for(question, lang, kind):
    assert answer_kinds.expected(fold(question), lang) == kind


def test_an_answer_holds_the_kind_asked_for():
    assert answer_kinds.holds("amount", "El envío cuesta 4,90 € por pedido.")
    assert not answer_kinds.holds("amount", "La máquina de espresso se limpia al cerrar.")
    assert answer_kinds.holds("time", "Leave it in the fridge for 18 hours.")
    assert answer_kinds.holds("count", "Cada persona tiene 23 días laborables.")
    assert not answer_kinds.holds("count", "Tostamos en pequeños lotes desde 2014.")  # a year is no count
    assert answer_kinds.holds("person", "El equipo lo dirige Marta Ibáñez.")
    # the question's own names are not who it asks for
    assert not answer_kinds.holds(
        "person", "En Cafetal Norte queremos que disfrutes cada taza.", ("Cafetal Norte",)
    )


def test_a_contact_is_a_number_to_call_or_an_address_to_write_to():
    assert answer_kinds.holds("contact", "Recepción: +52 81 8321 5500, de 7:00 a 19:00.")
    assert answer_kinds.holds("contact", "Llama a la extensión 4400.")
    assert answer_kinds.holds("contact", "Write to soporte@tramo.es.")
    assert not answer_kinds.holds(
        "contact", "Las visitas entran por la caseta 1 y se registran en recepción."
    )


def test_counts_and_dates_in_the_words_a_text_gives_them():
    assert answer_kinds.holds("count", "They won the cup twice as well.")
    assert answer_kinds.holds("count", "None of the original treaties mention it.")
    assert not answer_kinds.holds("count", "They won the cup as well.")
    # a year-like number counted in the unit asked is a count ("How many guests...?")
    assert not answer_kinds.holds("count", "A dinner attended by 2000 guests.")
    assert answer_kinds.holds("count", "A dinner attended by 2000 guests.", measure="guests", lang="en")
    assert not answer_kinds.holds(
        "count", "In 2000 the market held a dinner for its guests.", measure="guests", lang="en"
    )
    # an era is a date
    assert answer_kinds.holds("time", "The last glacial ran until the end of the Pleistocene (~11,600 BP).")
    assert answer_kinds.holds("time", "Fundada hacia el 300 a. C. por los fenicios.")
    assert not answer_kinds.holds("time", "An advertisement for the 300 bad apples.")


def test_how_long_is_answered_by_a_span_a_date_an_end_or_a_length_not_by_never():
    how_long = dict(measure=answer_kinds.DURATION, lang="en")
    # "never" and "daily" say when, not how long: "How long does the service wait before retrying?"
    assert not answer_kinds.holds("time", "Invoice numbers are never reused, even when voided.", **how_long)
    assert not answer_kinds.holds("time", "The report runs daily.", **how_long)
    assert answer_kinds.holds("time", "Invoice numbers are never reused, even when voided.")  # for "when"
    for text in (
        "A failed payment is retried after 30 seconds.",
        "RETRY_DELAY_SECONDS = 30",  # a constant's name says its unit
        "Los datos se guardan durante seis años.",  # an ñ is not folded away
        "It was in operation from 1870 to 1939.",
        "Well into the nineteenth century.",
        "Until the end of the current Parliament.",
        "The Rhine is 1,230 km long.",  # "How long is the river?"
        "Con 4 min 51 s de tiempo restante en el marcador.",
    ):
        assert answer_kinds.holds("time", text, **how_long), text


@pytest.mark.parametrize(
    ("question", "lang", "shape", "holds", "not_holds"),
    [
        # opening or support hours and "at what time" are told by a clock, not by a span
        (
            "What are your support hours?",
            "en",
            answer_kinds.CLOCK_TIME,
            "Support: 8:00 to 19:00, CET.",
            "P1 incidents: first response in 4 hours.",
        ),
        (
            "¿A qué hora se genera el manifiesto?",
            "es",
            answer_kinds.CLOCK_TIME,
            "Se genera a las 18:00.",
            "El manifiesto se genera cada día laborable.",
        ),
        # which day by a weekday, a date or a month, not by a number of weeks
        (
            "¿Qué día se tuesta el café de la suscripción?",
            "es",
            answer_kinds.DAY,
            "Tostamos los martes.",
            "Te lo enviamos cada 2, 3 o 4 semanas, recién tostado.",
        ),
        # how long by a span: a lone year (an altitude of 1900 m) is not one
        (
            "¿Cuánto dura en total el tueste?",
            "es",
            answer_kinds.DURATION,
            "Tiempo total: 10:05.",
            "CN-RWA-NYA | Ruanda Nyamasheke | Lavado | 1900 | Filtro",
        ),
    ],
)
def test_a_time_asked_a_particular_way_is_told_that_way(question, lang, shape, holds, not_holds):
    asked = understand(RetrieveRequest(query=question), ("es", "en"))
    assert (asked.expects, asked.measure) == ("time", shape)
    assert answer_kinds.holds("time", holds, measure=shape, lang=lang)
    assert not answer_kinds.holds("time", not_holds, measure=shape, lang=lang)


def test_which_day_is_also_told_by_a_numbered_day():
    day = dict(measure=answer_kinds.DAY, lang="en")
    assert answer_kinds.holds("time", "Reminders go out at 7, 15 and 30 days overdue.", **day)
    assert answer_kinds.holds("time", "El pago se hace el día 5 de cada mes.", **day)
    assert not answer_kinds.holds("time", "Te lo enviamos cada 2, 3 o 4 semanas.", **day)


def test_short_term_is_no_time_asked_for():
    asked = understand(RetrieveRequest(query="¿Por qué se creó esta organización a corto plazo?"), ("es",))
    assert asked.expects is None and asked.measure is None


@pytest.mark.parametrize(
    ("question", "lang", "measure"),
    [
        ("¿Cuántos litros de aceite lleva la prensa P-400?", "es", "litros"),
        ("How many people work at the Monterrey plant?", "en", "people"),
        ("¿Cuántos días de vacaciones tengo?", "es", "dias"),  # days, not any span of time
        ("If I change my mind, how long do I have to get my money back?", "en", answer_kinds.DURATION),
        ("¿En cuánto tiempo recupero mi dinero?", "es", answer_kinds.DURATION),
        ("How many of them are there?", "en", None),  # no unit
        ("¿Cuánto cuesta el plan Business?", "es", None),
    ],
)
def test_what_a_count_is_counted_in(question, lang, measure):
    assert answer_kinds.measure(fold(question), lang) == measure
    assert understand(RetrieveRequest(query=question), ("es", "en")).measure == measure


def test_a_quote_holds_a_number_counted_in_the_unit_asked():
    # the oil change's litres, not the press's tonnes; a number in words counts as well
    assert answer_kinds.measures(
        "litros", "es", "Cambio de aceite (320 litros de ISO VG 46) | Cada 4.000 horas"
    )
    assert not answer_kinds.measures("litros", "es", "La prensa hidráulica P-400 de 400 toneladas.")
    assert answer_kinds.measures("years", "en", "Order data is kept for six years, as tax law requires.")
    # a span of time is a number of days, hours...: not a clock time or a weekday
    assert answer_kinds.measures(answer_kinds.DURATION, "es", "Tienes 14 días naturales para desistir.")
    assert not answer_kinds.measures(
        answer_kinds.DURATION, "es", "Si cancelas después del lunes a las 12:00."
    )
    # the unit must follow the number closely
    assert not answer_kinds.measures("people", "en", "Room 12 on the second floor fits a lot of people.")
    # a number per unit is a rate, not a count of it: "How long is the free trial?" is not answered by a
    # price per month
    for rate in ("Esencial | 19 € / agente / mes", "500 respuestas al mes", "500 answers a month"):
        assert not answer_kinds.measures(answer_kinds.DURATION, "es", rate), rate
    assert not answer_kinds.measures("kilometre", "en", "Your own car is paid at 0.26 EUR per kilometre.")
    assert answer_kinds.measures(answer_kinds.DURATION, "en", "It keeps in the fridge for up to 2 weeks.")


def test_a_question_is_read_once_with_its_language_and_guess():
    query = understand(
        RetrieveRequest(query="¿Cuánto cuesta enviar un pedido a Estados Unidos?"), ("es", "en")
    )
    assert (query.lang, query.guess, query.expects, query.names) == (
        "es",
        "es",
        "amount",
        ("Estados Unidos",),
    )
    assert query.folded == fold(query.text) and query.heading_key


def test_numbers_fall_in_the_range_of_one_row():
    rows = [
        "Hasta 1.000 € | La persona responsable del equipo",
        "De 1.000 € a 10.000 € | La dirección del departamento",
        "De 10.000 € a 50.000 € | La dirección de compras y la dirección financiera",
        "Más de 50.000 € | El comité de dirección",
    ]
    assert ranges.rows_holding("¿Quién aprueba una compra de 5.000 €?", rows) == [rows[1]]
    assert ranges.rows_holding("Who approves a purchase of 20,000 euros?", rows) == [rows[2]]
    assert ranges.rows_holding("¿Quién aprueba compras?", rows) == []
    volumes = ["10 to 24 kg | 15 %", "25 to 49 kg | 22 %", "50 kg or more | 28 %"]
    assert ranges.rows_holding("What discount do cafés buying 60 kg a month get?", volumes) == [volumes[2]]
    # a bound named in words, and a question on a shared boundary that says which side it is on
    credits = [
        "99.0 % to below the commitment | 10 %",
        "95.0 % to below 99.0 % | 30 %",
        "below 95.0 % | 100 %",
    ]
    assert ranges.rows_holding("What credit when availability falls below 95 %?", credits) == [credits[2]]
    assert ranges.rows_holding("¿Y si baja por debajo del 95 %?", credits) == [credits[2]]
    assert ranges.rows_holding("What credit at 99.5 % availability?", credits) == [credits[0]]
    assert ranges.rows_holding("What credit at exactly 95 %?", credits) == [credits[1]]
