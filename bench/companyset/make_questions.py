"""Writes questions.jsonl: the company set's questions, their gold documents and gold answer strings.

Every question was written by hand from the documents, before Sabio indexed or answered any of them; this
file is the record of each one. Run it to rewrite questions.jsonl; it checks that every gold document
exists and that every gold answer string and step occurs in one of its gold documents (text read with
Sabio's own extractors, so a PDF or a workbook is checked as it is indexed).

A row: ``(kind, lang, question, docs, answers[, steps][, style])``
- kind: literal, paraphrase, cross-language (the fact is written only in the other language), table (a
  cell of a table), identifier (an SKU, error code, function or version), near-duplicate (a per-country or
  per-sheet twin holds a different value), unanswerable-in (plausible, names real things, fact absent),
  unanswerable-off (nothing to do with the company), howto (the answer is a list of steps);
- docs: gold documents (paths under the company folder); empty for the unanswerable;
- answers: acceptable answer strings (one of them in the quoted answer is correct);
- steps: every step that a complete how-to answer quotes;
- style: "normal", "keywords" (typed into a search box), "typo" (no accents, slips), "rambling".
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).parent

NONE: list[str] = []

CAFETAL = [
    # literal
    ("literal", "es", "¿En qué año empezó a tostar Cafetal Norte?", ["bienvenida.md"], ["2014"]),
    ("literal", "es", "¿Qué tostador usa Cafetal Norte?", ["bienvenida.md"], ["Giesen W15"]),
    ("literal", "es", "¿Quién es la responsable de tueste?", ["bienvenida.md"], ["Marta Ibáñez"]),
    ("literal", "es", "¿Cuánto tiempo tengo para desistir de una compra?", ["tienda/politica-devoluciones.md"], ["14 días naturales"]),
    ("literal", "es", "¿Cuántas semanas puedo pausar la suscripción?", ["suscripciones/preguntas-suscripcion.md"], ["8 semanas"]),
    ("literal", "es", "¿Qué día se tuesta el café de la suscripción?", ["suscripciones/preguntas-suscripcion.md"], ["martes"]),
    ("literal", "es", "¿Cuál es el horario de la tienda los sábados?", ["interno/horario-y-contacto.txt"], ["9:00 a 14:00"]),
    ("literal", "en", "How long does cold brew steep in the fridge?", ["formacion/cold-brew.md"], ["18 hours"]),
    ("literal", "en", "What is the minimum price you pay per pound of green coffee?", ["calidad/sourcing.md"], ["4.50 USD"]),
    ("literal", "en", "Which of your coffees is certified organic?", ["calidad/sourcing.md"], ["Chiapas Finca Irlanda"]),
    ("literal", "en", "How long do you keep order data?", ["legal/privacy-notice.txt"], ["six years"]),
    ("literal", "es", "¿Qué descuento tiene el equipo en café en grano para casa?", ["interno/turnos-y-normas.md"], ["30 %"]),
    ("literal", "es", "¿Con qué detergente se dejan en remojo los portafiltros?", ["formacion/manual-barista.pdf"], ["Cafiza"]),
    ("literal", "en", "What is the minimum first order for wholesale customers?", ["tienda/wholesale-terms.docx"], ["10 kg"]),
    ("literal", "en", "How much green coffee do you need for one kilo of roasted coffee? What is the roast yield?", ["inventario/src/sack.rs"], ["0.84"]),
    ("literal", "es", "¿En qué versión de la tienda se quitó el pago contra reembolso?", ["tienda/notas-de-version.md"], ["2.6.0"]),
    # paraphrase
    ("paraphrase", "es", "Si me arrepiento de la compra, ¿en cuánto tiempo recupero mi dinero?", ["tienda/politica-devoluciones.md"], ["14 días"]),
    ("paraphrase", "es", "¿Puedo dejar de recibir café unas semanas sin darme de baja?", ["suscripciones/preguntas-suscripcion.md"], ["8 semanas"]),
    ("paraphrase", "es", "¿Qué hago si me llega un café que no es el que pedí?", ["tienda/politica-devoluciones.md"], ["foto"]),
    ("paraphrase", "es", "¿Tienen fecha límite las tarjetas regalo?", ["tienda/politica-devoluciones.md"], ["no caducan"]),
    ("paraphrase", "es", "¿A qué temperatura se calienta la leche para un capuchino?", ["formacion/manual-barista.pdf"], ["60-65 °C"]),
    ("paraphrase", "en", "Could there be traces of nuts in your coffee?", ["calidad/sourcing.md"], ["does not handle nuts", "no allergens"]),
    ("paraphrase", "es", "¿Me cobráis algo si dejo la suscripción?", ["suscripciones/preguntas-suscripcion.md"], ["penalización"]),
    ("paraphrase", "es", "Mi café sale de la máquina demasiado rápido, ¿qué toco?", ["formacion/manual-barista.pdf"], ["demasiado grueso"]),
    ("paraphrase", "es", "¿Se puede ir a ver cómo tostáis?", ["interno/horario-y-contacto.txt"], ["primer sábado de cada mes"]),
    ("paraphrase", "en", "Do you check the quality of a coffee before you buy it?", ["calidad/sourcing.md"], ["84 points"]),
    ("paraphrase", "es", "¿Qué pasa si quiero otro café en mi próximo envío de la suscripción?", ["suscripciones/preguntas-suscripcion.md"], ["sin coste", "siguiente envío"]),
    # cross-language: the fact is written only in the other language
    ("cross-language", "en", "If I change my mind after buying, how long do I have to get my money back?", ["tienda/politica-devoluciones.md"], ["14 días"]),
    ("cross-language", "en", "Can I return an opened bag of coffee?", ["tienda/politica-devoluciones.md"], ["café abierto no se puede revender", "precinto intacto"]),
    ("cross-language", "en", "How long can I pause my coffee subscription?", ["suscripciones/preguntas-suscripcion.md"], ["8 semanas"]),
    ("cross-language", "en", "What are the café's opening hours on Saturdays?", ["interno/horario-y-contacto.txt"], ["9:00 a 14:00"]),
    ("cross-language", "es", "¿Cuánto tarda un envío al Reino Unido?", ["tienda/shipping.html"], ["4-6 working days"]),
    ("cross-language", "es", "¿Cuánto cuesta enviar un pedido a Estados Unidos?", ["tienda/shipping.html"], ["24.00 EUR"]),
    ("cross-language", "es", "¿Tenéis algún café ecológico?", ["calidad/sourcing.md"], ["Chiapas Finca Irlanda"]),
    ("cross-language", "es", "¿Cuánto pagáis a los productores por el café verde?", ["calidad/sourcing.md"], ["4.50 USD"]),
    ("cross-language", "es", "¿Cuántos gramos de café por litro de agua para hacer cold brew?", ["formacion/cold-brew.md"], ["100 g"]),
    ("cross-language", "es", "¿Prestáis molinos a las cafeterías que compran al por mayor?", ["tienda/wholesale-terms.docx"], ["Mahlkönig E65S"]),
    ("cross-language", "es", "¿Cuánto tiempo guardáis los datos de mis pedidos?", ["legal/privacy-notice.txt"], ["six years"]),
    ("cross-language", "en", "How many grams of ground coffee go into a double espresso?", ["formacion/manual-barista.pdf"], ["18 g"]),
    ("cross-language", "es", "¿Los paquetes a Reino Unido pagan aduanas?", ["tienda/shipping.html"], ["import duties"]),
    ("cross-language", "en", "How many free drinks do staff get per shift?", ["interno/turnos-y-normas.md"], ["dos bebidas gratis"]),
    # table cells
    ("table", "en", "How much is a 1 kg bag of the Ethiopian coffee?", ["tienda/precios-espana.md", "tienda/precios-mexico.md"], ["39,00 €", "870 MXN"]),
    ("table", "es", "¿Cuánto cuesta el Colombia Huila de 500 g?", ["tienda/precios-espana.md", "tienda/precios-mexico.md"], ["17,20 €", "385 MXN"]),
    ("table", "es", "¿Precio del Ruanda en bolsa de 250 gramos?", ["tienda/precios-espana.md"], ["12,50 €"]),
    ("table", "es", "¿Cuánto cuesta el envío a Canarias?", ["tienda/precios-espana.md"], ["9,90 €"]),
    ("table", "es", "¿Qué notas de cata tiene el Guatemala Huehuetenango?", ["tienda/catalogo-cafes.csv"], ["manzana roja"]),
    ("table", "es", "¿A qué altitud se cultiva el Etiopía Guji?", ["tienda/catalogo-cafes.csv"], ["2100"]),
    ("table", "es", "¿Cuál es la temperatura final del tueste de la Mezcla Norte?", ["calidad/perfiles-tueste.xlsx"], ["216"]),
    ("table", "es", "¿Cuánto dura en total el tueste del Ruanda Nyamasheke?", ["calidad/perfiles-tueste.xlsx"], ["10:05"]),
    ("table", "en", "What discount do cafés buying 60 kg a month get?", ["tienda/wholesale-terms.docx"], ["28 %"]),
    ("table", "es", "¿Con qué proceso se descafeina el descafeinado de Colombia?", ["tienda/catalogo-cafes.csv"], ["Agua de montaña"]),
    ("table", "es", "¿Cuánto tiempo de extracción lleva un espresso doble?", ["formacion/manual-barista.pdf"], ["27-32 s"]),
    ("table", "en", "How much does shipping to Portugal cost?", ["tienda/shipping.html"], ["6.90 EUR"]),
    # identifiers
    ("identifier", "es", "TPV-310", ["interno/errores-tpv.md"], ["modo sin conexión"], [], "keywords"),
    ("identifier", "es", "¿Qué significa el error TPV-512?", ["interno/errores-tpv.md"], ["descuadrado"]),
    ("identifier", "en", "What does POS error TPV-205 mean?", ["interno/errores-tpv.md"], ["impresora de tickets"]),
    ("identifier", "es", "CN-RWA-NYA", ["tienda/catalogo-cafes.csv"], ["Ruanda Nyamasheke"], [], "keywords"),
    ("identifier", "es", "¿Qué café es el SKU CN-BLD-NOR?", ["tienda/catalogo-cafes.csv"], ["Mezcla Norte"]),
    ("identifier", "es", "el codigo BIENVENIDA10 se aplica dos veces", ["tienda/notas-de-version.md"], ["BIENVENIDA10 se aplicaba dos veces"], [], "typo"),
    ("identifier", "en", "reorder_point for Ethiopia", ["inventario/src/sack.rs"], ["=> 420.0"], [], "keywords"),
    ("identifier", "es", "¿En qué versión se añadió el pago con Bizum?", ["tienda/notas-de-version.md"], ["3.4.0"]),
    ("identifier", "es", "¿Qué hago con el error TPV-102?", ["interno/errores-tpv.md"], ["otra tarjeta"]),
    # near-duplicates: a twin page or sheet holds another value
    ("near-duplicate", "es", "¿Cuánto cuesta el envío en México?", ["tienda/precios-mexico.md"], ["120 MXN"]),
    ("near-duplicate", "es", "¿A partir de qué importe es gratis el envío en España?", ["tienda/precios-espana.md"], ["35 €"]),
    ("near-duplicate", "es", "¿A partir de cuánto es gratis el envío en México?", ["tienda/precios-mexico.md"], ["900 MXN"]),
    ("near-duplicate", "es", "precio etiopia 1 kg mexico", ["tienda/precios-mexico.md"], ["870 MXN"], [], "keywords"),
    ("near-duplicate", "es", "¿Qué IVA llevan los precios de México?", ["tienda/precios-mexico.md"], ["16 %"]),
    ("near-duplicate", "es", "¿Cuánto cuesta el Brasil Cerrado de 250 g en España?", ["tienda/precios-espana.md"], ["8,40 €"]),
    ("near-duplicate", "es", "¿Cuál es la temperatura de carga del Colombia Huila para espresso?", ["calidad/perfiles-tueste.xlsx"], ["208"]),
    # unanswerable, in the domain: plausible, names real things, the fact is absent
    ("unanswerable-in", "en", "How much does the espresso machine cost?", NONE, NONE),
    ("unanswerable-in", "es", "¿Quién es el director general de Cafetal Norte?", NONE, NONE),
    ("unanswerable-in", "es", "¿Venden cápsulas compatibles con Nespresso?", NONE, NONE),
    ("unanswerable-in", "es", "¿Cuánto cuesta el Kenia AA de 250 g?", NONE, NONE),
    ("unanswerable-in", "en", "What is the wifi password at the café?", NONE, NONE),
    ("unanswerable-in", "es", "¿Cuántos empleados tiene Cafetal Norte?", NONE, NONE),
    ("unanswerable-in", "en", "Do you offer a student discount?", NONE, NONE),
    ("unanswerable-in", "es", "¿Qué precio tiene el curso de barista para clientes?", NONE, NONE),
    ("unanswerable-in", "en", "How much caffeine is in the decaf?", NONE, NONE),
    ("unanswerable-in", "es", "¿Cuánto cobráis por el envío urgente en el mismo día en Oviedo?", NONE, NONE),
    # unanswerable, off the domain
    ("unanswerable-off", "es", "¿Cuál es la capital de Australia?", NONE, NONE),
    ("unanswerable-off", "en", "Who won the 2018 World Cup?", NONE, NONE),
    ("unanswerable-off", "es", "¿Cómo se calcula el IRPF de un autónomo?", NONE, NONE),
    ("unanswerable-off", "en", "How do I reset my iPhone to factory settings?", NONE, NONE),
    # how-to: the answer is the whole list of steps
    ("howto", "en", "How do I make cold brew at home?", ["formacion/cold-brew.md"], ["Grind 100 g"],
     ["Grind 100 g", "cold filtered water", "18 hours", "Strain it"]),
    ("howto", "es", "¿Cómo se limpia la máquina de espresso al cerrar?", ["formacion/manual-barista.pdf"], ["Cafiza"],
     ["Cafiza", "retrolavado con detergente", "solo con agua", "duchas"]),
    ("howto", "es", "¿Cómo calibro el molino por la mañana?", ["formacion/manual-barista.pdf"], ["Purga el molino"],
     ["Purga el molino", "Prepara un doble", "cierra el molido", "tres extracciones"]),
    ("howto", "es", "¿Cómo ejecuto la herramienta de inventario de café verde?", ["inventario/README.md"], ["cargo run"],
     ["sacos.csv", "datos/", "cargo run", "jueves"]),
    ("howto", "es", "como se hace una cata de cafe paso a paso", ["formacion/curso-cata.pptx"], ["Romper la costra"],
     ["Oler el café molido", "Romper la costra", "Limpiar la superficie", "Sorber", "Anotar"], "typo"),
    # rambling and keyword-style versions of real questions
    ("paraphrase", "es", "hola, compré café hace una semana para regalar pero al final no lo quiero, "
     "no lo he abierto, ¿lo puedo devolver y cuánto tardáis en devolverme el dinero?", ["tienda/politica-devoluciones.md"],
     ["14 días"], [], "rambling"),
    ("literal", "es", "pausar suscripcion cuanto tiempo", ["suscripciones/preguntas-suscripcion.md"], ["8 semanas"], [], "keywords"),
    ("table", "es", "envio canarias precio", ["tienda/precios-espana.md"], ["9,90 €"], [], "keywords"),
    ("cross-language", "en", "we run a small cafe and go through maybe 30 kilos a month, would you lend us a grinder "
     "or something?", ["tienda/wholesale-terms.docx"], ["Mahlkönig E65S"], [], "rambling"),
]

TRAMO = [
    # literal
    ("literal", "en", "What prefix do shipment ids have?", ["api/shipments.md"], ["shp_"]),
    ("literal", "en", "How long does a label_url stay valid?", ["api/shipments.md"], ["30 days"]),
    ("literal", "en", "How many shipments per page does the list endpoint return?", ["api/shipments.md"], ["50 per page"]),
    ("literal", "en", "Which header carries the webhook signature?", ["api/webhooks.md"], ["Tramo-Signature"]),
    ("literal", "en", "How many times does Tramo retry a failed webhook?", ["api/webhooks.md"], ["8 times"]),
    ("literal", "en", "How long does my endpoint have to answer a webhook?", ["api/webhooks.md"], ["10 seconds"]),
    ("literal", "en", "What is the availability commitment on the Enterprise plan?", ["legal/sla.docx"], ["99.95 %"]),
    ("literal", "en", "How long do deprecated endpoints keep working?", ["soporte/release-policy.md"], ["12 months"]),
    ("literal", "es", "¿Cuál es la recarga mínima del saldo prepago?", ["guias/primeros-pasos.md"], ["50 €"]),
    ("literal", "es", "¿Cuándo caduca el enlace para confirmar el correo?", ["guias/primeros-pasos.md"], ["24 horas"]),
    ("literal", "es", "¿En qué región de AWS se guardan los datos?", ["legal/seguridad.pdf"], ["Irlanda", "eu-west-1"]),
    ("literal", "es", "¿Cada cuánto se hacen copias de seguridad?", ["legal/seguridad.pdf"], ["cada 6 horas"]),
    ("literal", "en", "Which subprocessor sends the SMS notifications?", ["legal/dpa.txt"], ["Twilio"]),
    ("literal", "en", "How soon do you notify a personal data breach?", ["legal/dpa.txt"], ["48 hours"]),
    ("literal", "es", "¿A qué hora se genera el manifiesto?", ["guias/glosario.md"], ["18:00"]),
    ("literal", "en", "What are your support hours?", ["soporte/support.md"], ["8:00 to 19:00"]),
    ("literal", "es", "¿Desde cuándo tiene Tramo la ISO 27001?", ["legal/seguridad.pdf"], ["2024"]),
    # paraphrase
    ("paraphrase", "en", "How do I make sure a retried request doesn't buy the same label twice?", ["api/shipments.md"], ["idempotency_key"]),
    ("paraphrase", "en", "Our webhook endpoint stopped getting events after a day of errors. Why?", ["api/webhooks.md"], ["disabled"]),
    ("paraphrase", "es", "Si cancelo una etiqueta, ¿me devolvéis el dinero a la tarjeta?", ["guias/preguntas-frecuentes.md"], ["No se devuelve a la tarjeta"]),
    ("paraphrase", "es", "¿Puedo conectar dos tiendas online con el plan más barato?", ["guias/preguntas-frecuentes.md"], ["una sola tienda"]),
    ("paraphrase", "en", "What happens to our recipients' data a couple of years after delivery?", ["legal/dpa.txt"], ["24 months"]),
    ("paraphrase", "en", "Can we inspect Tramo's security ourselves?", ["legal/dpa.txt"], ["audit Tramo once a year"]),
    ("paraphrase", "es", "¿Hay que firmar un mínimo de meses?", ["guias/preguntas-frecuentes.md"], ["darte de baja cuando quieras"]),
    ("paraphrase", "en", "Status updates come in the wrong order. How do I know which one is the latest?", ["api/webhooks.md"], ["occurred_at"]),
    ("paraphrase", "es", "Si pago el año entero y me voy a mitad, ¿me devolvéis algo?", ["guias/preguntas-frecuentes.md"], ["no se devuelve la parte no usada"]),
    ("paraphrase", "en", "We need way more API calls for Black Friday, what can we do?", ["api/rate-limits.md"], ["temporary raise"]),
    ("paraphrase", "en", "Do tracking webhooks eat into our request quota?", ["api/rate-limits.md"], ["do not count against the limit"]),
    # cross-language
    ("cross-language", "es", "¿Cuántas peticiones por minuto permite el plan Business?", ["api/rate-limits.md"], ["Business | 600"]),
    ("cross-language", "es", "¿Cómo verifico la firma de un webhook?", ["api/webhooks.md", "sdk/tramo_client.py"], ["HMAC-SHA256"]),
    ("cross-language", "es", "¿Tenéis descuento para ONG?", ["precios/pricing-us.html"], ["30 % off"]),
    ("cross-language", "es", "¿Qué crédito recibo si la disponibilidad del mes baja del 99 %?", ["legal/sla.docx"], ["25 %", "30 %"]),
    ("cross-language", "es", "¿En cuánto tiempo responde soporte a una incidencia P1 en Enterprise?", ["soporte/support.md"], ["30 minutes"]),
    ("cross-language", "en", "How long are backups kept?", ["legal/seguridad.pdf"], ["35 días"]),
    ("cross-language", "en", "What label sizes can I print?", ["guias/etiquetas.html"], ["10 x 15 cm"]),
    ("cross-language", "en", "Is there a minimum top-up for the prepaid balance?", ["guias/primeros-pasos.md"], ["50 €"]),
    ("cross-language", "es", "¿Qué subencargados del tratamiento usa Tramo?", ["legal/dpa.txt"], ["Amazon Web Services", "Postmark", "Twilio"]),
    ("cross-language", "es", "¿Cuánto cuesta el onboarding de un cliente Enterprise?", ["ventas/onboarding-customers.pptx"], ["1,500 EUR"]),
    ("cross-language", "en", "Why could we not buy SEUR labels on 14 May 2026?", ["status/postmortem-2026-05-14.md"], ["certificado"]),
    ("cross-language", "es", "¿Mi código tiene que ignorar los campos nuevos de la API?", ["soporte/release-policy.md"], ["ignore fields it does not know"]),
    ("cross-language", "en", "How do I reprint a label?", ["guias/etiquetas.html"], ["Descargar etiqueta"]),
    ("cross-language", "en", "Can several people use one account, and how do I invite them?", ["guias/preguntas-frecuentes.md"], ["Invitar"]),
    ("cross-language", "es", "¿Cada cuánto sale una versión mayor nueva de la API?", ["soporte/release-policy.md"], ["once every two years"]),
    # tables
    ("table", "es", "¿Cuánto cuesta el plan Business en España?", ["precios/precios-espana.html"], ["99 €"]),
    ("table", "es", "¿Cuánto cuesta un envío adicional en el plan Enterprise en España?", ["precios/precios-espana.html"], ["0,03 €"]),
    ("table", "es", "¿Cuánto cuesta un SEUR 24 de 3 kg en España?", ["precios/tarifas-transportistas.xlsx"], ["5,90 €"]),
    ("table", "en", "What is the label purchase limit per minute on Business?", ["api/rate-limits.md"], ["600 | 150"]),
    ("table", "en", "What's the maximum parcel weight for Correos?", ["carriers.csv"], ["PAQ_LIGERO | 30"]),
    ("table", "en", "First response time for a P2 issue on the Business plan?", ["soporte/support.md"], ["8 business hours"]),
    ("table", "en", "What credit do Enterprise customers get when availability falls below 95 %?", ["legal/sla.docx"], ["100 %"]),
    ("table", "es", "¿Qué servicios tiene GLS?", ["carriers.csv"], ["GLS_BUSINESS"]),
    ("table", "es", "¿Cuánto cuesta un InPost Locker de hasta 1 kg en España?", ["precios/tarifas-transportistas.xlsx"], ["2,95 €"]),
    ("table", "en", "How much is an extra shipment on the Starter plan in the US?", ["precios/pricing-us.html"], ["$0.12"]),
    # identifiers
    ("identifier", "en", "TRM-4220", ["api/errors.md"], ["weight limit"], [], "keywords"),
    ("identifier", "es", "¿Qué significa el error TRM-4093?", ["api/errors.md", "api/shipments.md"], ["already scanned"]),
    ("identifier", "en", "error TRM-5030", ["api/errors.md"], ["maintenance"], [], "keywords"),
    ("identifier", "en", "What does TRM-4002 mean?", ["api/errors.md"], ["postal code does not exist"]),
    ("identifier", "es", "¿Se puede reintentar un TRM-5002?", ["api/errors.md"], ["safe to retry", "Retry with the same"]),
    ("identifier", "en", "verify_webhook timestamp tolerance", ["sdk/tramo_client.py"], ["tolerance_s: int = 300", "five minutes"], [], "keywords"),
    ("identifier", "en", "Which format does labelFormatFor pick for a Zebra LP2844?", ["sdk/labels.ts"], ["EPL"]),
    ("identifier", "es", "¿Qué hace export_invoices.sh?", ["scripts/export_invoices.sh"], ["invoices"]),
    ("identifier", "en", "What was added in 2.20.0?", ["CHANGELOG.md"], ["InPost"]),
    ("identifier", "en", "In which version was GET /v1/rates removed?", ["CHANGELOG.md"], ["2.18.0"]),
    ("identifier", "es", "ESTAFETA servicios", ["carriers.csv"], ["ESTAFETA_DIA_SIGUIENTE"], [], "keywords"),
    ("identifier", "en", "idempotency_key how long", ["api/shipments.md"], ["24 hours"], [], "keywords"),
    ("identifier", "en", "TRM-4011", ["api/errors.md"], ["missing or revoked"], [], "keywords"),
    # near-duplicates
    ("near-duplicate", "es", "¿Cuánto cuesta el plan Starter en México?", ["precios/precios-mexico.html"], ["549 MXN"]),
    ("near-duplicate", "en", "How much is the Business plan in the US?", ["precios/pricing-us.html"], ["$119"]),
    ("near-duplicate", "es", "¿Cuánto dura la prueba gratuita en España?", ["precios/precios-espana.html"], ["14 días"]),
    ("near-duplicate", "es", "¿Cuántos meses gratis da el pago anual en México?", ["precios/precios-mexico.html"], ["un mes"]),
    ("near-duplicate", "es", "¿Cuánto cuesta un SEUR 48 de 1-2 kg en Portugal?", ["precios/tarifas-transportistas.xlsx"], ["5,90 €"]),
    ("near-duplicate", "en", "How long is the free trial in Mexico?", ["precios/precios-mexico.html"], ["30 días"]),
    ("near-duplicate", "es", "¿Cuánto cuesta un InPost Locker de hasta 1 kg en Portugal?", ["precios/tarifas-transportistas.xlsx"], ["3,80 €"]),
    # unanswerable, in the domain
    ("unanswerable-in", "en", "Does Tramo integrate with WooCommerce?", NONE, NONE),
    ("unanswerable-in", "es", "¿Cuánto cuesta el plan Premium?", NONE, NONE),
    ("unanswerable-in", "en", "What is the rate limit on the Free plan?", NONE, NONE),
    ("unanswerable-in", "es", "¿Quién es el CEO de Tramo?", NONE, NONE),
    ("unanswerable-in", "en", "Does Tramo support FedEx?", NONE, NONE),
    ("unanswerable-in", "es", "¿Tiene Tramo oficina en Barcelona?", NONE, NONE),
    ("unanswerable-in", "en", "How do I delete a webhook endpoint through the API?", NONE, NONE),
    ("unanswerable-in", "es", "¿Tramo ofrece seguro para los paquetes?", NONE, NONE),
    ("unanswerable-in", "en", "What does error TRM-4450 mean?", NONE, NONE),
    ("unanswerable-in", "es", "¿Cuánto cuesta el plan Business en Colombia?", NONE, NONE),
    # unanswerable, off the domain
    ("unanswerable-off", "en", "What is the boiling point of water in Fahrenheit?", NONE, NONE),
    ("unanswerable-off", "es", "¿Quién escribió Cien años de soledad?", NONE, NONE),
    ("unanswerable-off", "en", "best pizza in Madrid", NONE, NONE, [], "keywords"),
    # how-to
    ("howto", "es", "¿Cómo conecto mi tienda de Shopify con Tramo?", ["guias/integrar-shopify.md"], ["Integraciones"],
     ["Ajustes > Integraciones", "dominio de tu tienda", "acepta los permisos", "dirección de recogida por defecto", "Importar pedidos"]),
    ("howto", "es", "¿Cómo creo mi cuenta en Tramo?", ["guias/primeros-pasos.md"], ["Regístrate"],
     ["Regístrate", "Confirma el correo", "datos fiscales", "dirección de recogida"]),
    ("howto", "en", "How do I connect my Shopify store to Tramo?", ["guias/integrar-shopify.md"], ["Integraciones"],
     ["Ajustes > Integraciones", "dominio de tu tienda", "acepta los permisos", "dirección de recogida por defecto", "Importar pedidos"]),
    ("howto", "es", "¿Cómo añado a un compañero a la cuenta?", ["guias/preguntas-frecuentes.md"], ["Invitar"],
     ["Ajustes > Equipo", "Invitar", "rol"]),
    ("howto", "en", "How do I cancel a shipment?", ["api/shipments.md"], ["/cancel"], ["/cancel"]),
    # rambling / keywords
    ("paraphrase", "en", "hi, we integrated last week and sometimes the carrier times out and our code retries, "
     "I'm worried we get charged for two labels, is there some way to avoid that?", ["api/shipments.md"],
     ["idempotency_key"], [], "rambling"),
    ("cross-language", "es", "limite peticiones api plan starter", ["api/rate-limits.md"], ["Starter | 120"], [], "keywords"),
    ("table", "es", "precio plan business mexico", ["precios/precios-mexico.html"], ["1,899 MXN"], [], "keywords"),
]

ALBOR = [
    # literal
    ("literal", "es", "¿Cuántos días de vacaciones tengo al año en España?", ["rrhh/vacaciones-y-permisos.md"], ["23 días laborables"]),
    ("literal", "es", "¿Cuántos días de permiso dan por matrimonio?", ["rrhh/vacaciones-y-permisos.md"], ["15 días naturales"]),
    ("literal", "en", "How many characters must a password have?", ["it/password-policy.md"], ["14 characters"]),
    ("literal", "en", "How long are mailboxes kept after someone leaves?", ["it/password-policy.md"], ["90 days"]),
    ("literal", "en", "What is the VPN portal address?", ["it/vpn-setup.md"], ["vpn.albor-industrial.com"]),
    ("literal", "es", "¿Cuál es la dirección de la planta de Valencia?", ["plantas/planta-valencia.md"], ["Ciudad de Sevilla 41"]),
    ("literal", "es", "¿Quién es la jefa de planta de Monterrey?", ["plantas/planta-monterrey.md"], ["Daniela Garza"]),
    ("literal", "es", "¿Cuánto cuesta el menú del comedor en Valencia?", ["plantas/planta-valencia.md"], ["4,50 €"]),
    ("literal", "es", "¿Cuál es el objetivo de ppm para 2026?", ["calidad/no-conformidades.md"], ["350 piezas"]),
    ("literal", "en", "How often are laptops replaced?", ["it/laptop-request.html"], ["every four years"]),
    ("literal", "es", "¿Cuánto facturó Albor en el tercer trimestre de 2026?", ["comunicados/resultados-2026-t3.pptx"], ["48,2 millones"]),
    ("literal", "es", "¿Cuántos litros de aceite lleva la prensa P-400?", ["operaciones/manual-prensa-p400.pdf"], ["320 litros"]),
    ("literal", "en", "When is the safety induction?", ["rrhh/onboarding-checklist.md"], ["Mondays at 8:30"]),
    ("literal", "es", "¿Cuántos días al año se puede teletrabajar desde el extranjero?", ["rrhh/teletrabajo.docx"], ["15 días"]),
    ("literal", "en", "What is the corporate card limit?", ["rrhh/travel-expenses.md"], ["3,000 EUR"]),
    ("literal", "en", "How long does the nightly backup keep daily snapshots?", ["it/scripts/backup_nas.py"], ["KEEP_DAYS = 35"]),
    # paraphrase
    ("paraphrase", "es", "¿Puedo guardar días de vacaciones para el año que viene?", ["rrhh/vacaciones-y-permisos.md"], ["máximo de cinco"]),
    ("paraphrase", "en", "I typed my password wrong a bunch of times and now I can't get in. What now?", ["it/password-policy.md"], ["locked for 30 minutes"]),
    ("paraphrase", "es", "¿Qué hago si una pieza sale defectuosa de la línea?", ["calidad/no-conformidades.md"], ["etiqueta roja"]),
    ("paraphrase", "en", "Do I have to change my password every few months?", ["it/password-policy.md"], ["No forced rotation"]),
    ("paraphrase", "es", "¿Me pagan algo por trabajar desde casa?", ["rrhh/teletrabajo.docx"], ["30 € al mes"]),
    ("paraphrase", "es", "¿Puedo dividir una compra grande en varios pedidos pequeños?", ["compras/aprobaciones.md"], ["No se pueden partir pedidos"]),
    ("paraphrase", "es", "¿Hay algún día que tenga que ir sí o sí a la oficina?", ["rrhh/teletrabajo.docx"], ["Los lunes son presenciales"]),
    ("paraphrase", "es", "¿Por qué hay que llevar tapones en estampación?", ["seguridad/epis.md"], ["85 dB"]),
    ("paraphrase", "en", "Where do I go when the fire alarm rings if I work in welding?", ["seguridad/emergency-plan.txt"], ["point B"]),
    ("paraphrase", "es", "¿Cuánto tarda calidad en decidir qué se hace con material que no cumple?", ["calidad/no-conformidades.md"], ["48 horas"]),
    ("paraphrase", "en", "Can I pay for a team dinner with my corporate card and give the money back later?", ["rrhh/travel-expenses.md"], ["Personal expenses must never be paid with it"]),
    # cross-language
    ("cross-language", "es", "¿Cuántos caracteres tiene que tener la contraseña?", ["it/password-policy.md"], ["14 characters"]),
    ("cross-language", "es", "¿Cuánto pagan por kilómetro si uso mi coche?", ["rrhh/travel-expenses.md"], ["0.26 EUR"]),
    ("cross-language", "es", "¿Se puede volar en business en vuelos largos?", ["rrhh/travel-expenses.md"], ["premium economy"]),
    ("cross-language", "es", "¿Qué portátil le dan a un ingeniero?", ["it/laptop-request.html"], ["ThinkPad P16s"]),
    ("cross-language", "es", "¿Cuánto dura el periodo de prueba de un técnico?", ["rrhh/onboarding-checklist.md"], ["six months"]),
    ("cross-language", "es", "¿Dónde están los desfibriladores?", ["seguridad/emergency-plan.txt"], ["main reception"]),
    ("cross-language", "en", "How many days of holiday do I get in Spain?", ["rrhh/vacaciones-y-permisos.md"], ["23 días"]),
    ("cross-language", "en", "How many days of leave do I get when I move house?", ["rrhh/vacaciones-y-permisos.md"], ["Mudanza: 1 día"]),
    ("cross-language", "en", "Which PPE is required in the welding area?", ["seguridad/epis.md"], ["pantalla de soldar"]),
    ("cross-language", "en", "How many people work at the Monterrey plant?", ["comunicados/resultados-2026-t3.pptx"], ["Monterrey 490"]),
    ("cross-language", "es", "¿Con cuánta antelación hay que pedir el portátil de una persona nueva?", ["it/laptop-request.html", "rrhh/onboarding-checklist.md"], ["ten working days"]),
    ("cross-language", "en", "What are the shift hours at the Valencia plant?", ["plantas/planta-valencia.md"], ["6:00 a 14:00"]),
    ("cross-language", "es", "¿Se reembolsa el alcohol en los viajes?", ["rrhh/travel-expenses.md"], ["never reimbursed"]),
    ("cross-language", "es", "¿Cuándo me desactivan las cuentas si dejo la empresa?", ["it/password-policy.md"], ["18:00"]),
    ("cross-language", "en", "Who approves a purchase of 20,000 euros?", ["compras/aprobaciones.md"], ["dirección de compras y la dirección financiera"]),
    ("cross-language", "es", "¿A qué extensión llamo para desbloquear mi cuenta?", ["it/password-policy.md"], ["4400"]),
    # tables
    ("table", "es", "¿Cuánto es la media dieta en España?", ["rrhh/dietas-de-viaje.xlsx"], ["26,67 €"]),
    ("table", "es", "¿Cuánto es el alojamiento máximo por noche en Madrid?", ["rrhh/dietas-de-viaje.xlsx"], ["140 €"]),
    ("table", "es", "¿Quién aprueba una compra de 5.000 €?", ["compras/aprobaciones.md"], ["dirección del departamento"]),
    ("table", "es", "¿Qué precio tiene el refuerzo de pilar B?", ["catalogo/productos.xlsx"], ["18,75 €"]),
    ("table", "es", "¿Cuánto pesa el travesaño de salpicadero?", ["catalogo/productos.xlsx"], ["3420"]),
    ("table", "en", "Which laptop do sales people get?", ["it/laptop-request.html"], ["X1 Carbon"]),
    ("table", "es", "¿Cada cuánto se cambian los filtros de aceite de la prensa?", ["operaciones/manual-prensa-p400.pdf"], ["1.000 horas"]),
    ("table", "es", "¿Qué EPI necesito en la zona de pintura?", ["seguridad/epis.md"], ["A2P3"]),
    ("table", "en", "What phone do plant supervisors get?", ["it/laptop-request.html"], ["XCover 7"]),
    # identifiers
    ("identifier", "es", "A-230", ["operaciones/codigos-alarma.csv"], ["Doble pieza"], [], "keywords"),
    ("identifier", "es", "¿Qué significa la alarma B-342?", ["operaciones/codigos-alarma.csv"], ["Colisión"]),
    ("identifier", "en", "What does alarm C-505 mean?", ["operaciones/codigos-alarma.csv"], ["Filtro saturado"]),
    ("identifier", "es", "ALB-SOP-1042 precio", ["catalogo/productos.xlsx"], ["12,40 €"], [], "keywords"),
    ("identifier", "es", "ALB-GUI-0077", ["catalogo/productos.xlsx"], ["Guía de asiento"], [], "keywords"),
    ("identifier", "es", "¿Qué es el PC-07?", ["calidad/no-conformidades.md"], ["no conformidades"]),
    ("identifier", "en", "KEEP_DAYS in the NAS backup", ["it/scripts/backup_nas.py"], ["KEEP_DAYS = 35"], [], "keywords"),
    ("identifier", "es", "¿Qué hace prune_old_snapshots?", ["it/scripts/backup_nas.py"], ["older than KEEP_DAYS"]),
    ("identifier", "es", "¿Qué material es la pieza ALB-BRZ-0420?", ["catalogo/productos.xlsx"], ["Acero S420"]),
    ("identifier", "es", "¿Qué hago con la alarma A-117?", ["operaciones/codigos-alarma.csv"], ["Parar 20 minutos"]),
    ("identifier", "en", "In which intranet release did single sign-on arrive?", ["it/intranet-release-notes.md"], ["2025.03"]),
    # near-duplicates
    ("near-duplicate", "es", "¿A qué hora empieza el turno de noche en Monterrey?", ["plantas/planta-monterrey.md"], ["23:00"]),
    ("near-duplicate", "es", "¿A qué hora empieza el turno de mañana en Valencia?", ["plantas/planta-valencia.md"], ["6:00"]),
    ("near-duplicate", "es", "¿Cuánto cuesta la comida en el comedor de Monterrey?", ["plantas/planta-monterrey.md"], ["gratuita"]),
    ("near-duplicate", "es", "¿Cuántas plazas de aparcamiento hay en Valencia?", ["plantas/planta-valencia.md"], ["180 plazas"]),
    ("near-duplicate", "es", "teléfono recepción planta Monterrey", ["plantas/planta-monterrey.md"], ["8321 5500"], [], "keywords"),
    ("near-duplicate", "es", "¿Cuál es el alojamiento máximo por noche en Estados Unidos?", ["rrhh/dietas-de-viaje.xlsx"], ["220 USD"]),
    ("near-duplicate", "es", "media dieta mexico", ["rrhh/dietas-de-viaje.xlsx"], ["550 MXN"], [], "keywords"),
    ("near-duplicate", "en", "What is assembly point 2 at the Monterrey plant?", ["seguridad/emergency-plan.txt"], ["sports field"]),
    ("near-duplicate", "es", "¿Cuántos días de vacaciones tiene el primer año alguien de la planta de Monterrey?", ["rrhh/vacaciones-y-permisos.md"], ["12 días el primer año"]),
    # unanswerable, in the domain
    ("unanswerable-in", "es", "¿Quién es el director general de Albor?", NONE, NONE),
    ("unanswerable-in", "es", "¿Cuántos días de vacaciones tienen en la planta de Alemania?", NONE, NONE),
    ("unanswerable-in", "en", "What is the guest Wi-Fi password?", NONE, NONE),
    ("unanswerable-in", "es", "¿Cuánto cuesta la pieza ALB-CAP-9001?", NONE, NONE),
    ("unanswerable-in", "en", "What is the bonus policy for engineers?", NONE, NONE),
    ("unanswerable-in", "es", "¿Hay guardería en la planta de Valencia?", NONE, NONE),
    ("unanswerable-in", "es", "¿Cuánto se paga la hora extra?", NONE, NONE),
    ("unanswerable-in", "en", "What's the dress code for the office?", NONE, NONE),
    ("unanswerable-in", "es", "¿Cuándo es la cena de Navidad de la empresa?", NONE, NONE),
    ("unanswerable-in", "en", "How long is maternity leave at the Monterrey plant?", NONE, NONE),
    # unanswerable, off the domain
    ("unanswerable-off", "es", "¿Cuántos planetas hay en el sistema solar?", NONE, NONE),
    ("unanswerable-off", "en", "How do I bake sourdough bread?", NONE, NONE),
    ("unanswerable-off", "es", "receta de paella valenciana", NONE, NONE, [], "keywords"),
    # how-to
    ("howto", "en", "How do I set up the VPN on my laptop?", ["it/vpn-setup.md"], ["GlobalProtect"],
     ["Company Portal", "vpn.albor-industrial.com", "MFA request", "Connected"]),
    ("howto", "es", "¿Qué pasos hay que seguir para consignar la prensa?", ["operaciones/manual-prensa-p400.pdf"], ["candado personal"],
     ["punto muerto inferior", "Para la prensa", "candado personal", "acumuladores", "NO OPERAR", "botón de marcha"]),
    ("howto", "es", "¿Cómo pido el teletrabajo?", ["rrhh/teletrabajo.docx"], ["portal del empleado"],
     ["portal del empleado", "cinco días laborables", "acuerdo individual"]),
    ("howto", "es", "¿Qué pasos sigo con una pieza no conforme?", ["calidad/no-conformidades.md"], ["etiqueta roja"],
     ["etiqueta roja", "informe de no conformidad", "disposición", "8D", "cierra la no conformidad"]),
    ("howto", "es", "como configuro la vpn en el portatil", ["it/vpn-setup.md"], ["GlobalProtect"],
     ["Company Portal", "vpn.albor-industrial.com", "MFA request", "Connected"], "typo"),
    # rambling / keywords
    ("paraphrase", "es", "buenas, me caso en junio y quería saber cuántos días me dan libres por la boda y "
     "si se suman a las vacaciones normales o no", ["rrhh/vacaciones-y-permisos.md"], ["15 días naturales"], [], "rambling"),
    ("table", "es", "quien aprueba compra 30000 euros", ["compras/aprobaciones.md"], ["dirección de compras y la dirección financiera"], [], "keywords"),
    ("cross-language", "es", "taxi por la noche se paga?", ["rrhh/travel-expenses.md"], ["after 22:00"], [], "typo"),
]

COMPANIES = {"cafetal-norte": CAFETAL, "tramo": TRAMO, "albor": ALBOR}
PREFIX = {"cafetal-norte": "cn", "tramo": "tr", "albor": "al"}


def rows() -> list[dict]:
    out = []
    for company, questions in COMPANIES.items():
        for n, q in enumerate(questions, 1):
            kind, lang, text, docs, answers = q[:5]
            steps = q[5] if len(q) > 5 else []
            style = q[6] if len(q) > 6 else "normal"
            out.append(
                {
                    "id": f"{PREFIX[company]}-{n:03d}",
                    "company": company,
                    "lang": lang,
                    "kind": kind,
                    "style": style,
                    "question": text,
                    "docs": docs,
                    "answers": answers,
                    "steps": steps,
                }
            )
    return out


def check(questions: list[dict]) -> list[str]:
    """Every gold document exists; every answer and step occurs in one of its documents as indexed."""
    from chalicelib.extraction.dispatch import extract
    from chalicelib.text import fold

    problems = []
    texts: dict[str, str] = {}
    for q in questions:
        folder = HERE / q["company"]
        for doc in q["docs"]:
            key = f"{q['company']}/{doc}"
            if key not in texts:
                path = folder / doc
                if not path.is_file():
                    problems.append(f"{q['id']}: no document {key}")
                    continue
                texts[key] = fold(extract(doc, path.read_bytes(), max_bytes=10_000_000).text)
        gold = [texts.get(f"{q['company']}/{d}", "") for d in q["docs"]]
        for answer in q["answers"] + q["steps"]:
            if not any(fold(" ".join(answer.split())) in " ".join(text.split()) for text in gold):
                problems.append(f"{q['id']}: {answer!r} is in none of {q['docs']}")
        if q["kind"].startswith("unanswerable") != (not q["docs"]):
            problems.append(f"{q['id']}: unanswerable questions, and only they, have no documents")
    return problems


def main() -> int:
    questions = rows()
    problems = check(questions)
    for p in problems:
        print(p)
    if problems:
        return 1
    path = HERE / "questions.jsonl"
    path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions), encoding="utf-8")
    print(f"wrote {len(questions)} questions to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
