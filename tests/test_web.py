"""The web page (``GET /``) in a real headless Chromium against ``sabio serve`` on examples/, with API keys on:
questions in Spanish and English, a citation opened with its quote highlighted, the bootstrap map, filters,
the enrichment inspector, the status page, keys (none, scoped), API Gateway's stage path, the keyboard, and
an axe-core check at desktop and phone width."""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from bench.load import Server, reindex
from bench.web import DESKTOP, PHONE, StagePath, chromium, missing, quit_browser, wait_for
from tests.conftest import EXAMPLES, ROOT

pytestmark = [
    pytest.mark.slow,
    pytest.mark.browser,
    pytest.mark.skipif(missing() is not None, reason=str(missing())),
]
KEYS = {
    "ops-key": {"name": "ops", "all_documents": True},
    "faro-key": {"name": "faro-team", "source_refs": ["docs/faro/", "precios/faro"]},
}
AXE = ROOT / "tests" / "vendor" / "axe.min.js"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """examples/ plus one file that cannot be indexed, served by ``sabio serve`` with two keys."""
    tmp = tmp_path_factory.mktemp("web")
    folder = tmp / "corpus"
    shutil.copytree(EXAMPLES, folder)
    (folder / "internal" / "broken.txt").write_bytes(b"pedido\x00\x01\x02")
    (folder / ".sabio-read").write_text("public  # every key reads the examples\n", encoding="utf-8")
    store = tmp / "sabio.db"
    assert reindex(store, folder)["returncode"] == 1  # the broken file failed; the rest is indexed
    server = Server(store, env={"SABIO_AUTH": "keys", "SABIO_API_KEYS": json.dumps(KEYS)})
    assert server.banner, "sabio serve did not start"
    yield server
    server.stop()


@pytest.fixture
def page(served: Server) -> Iterator[Any]:
    driver = chromium(DESKTOP, "en-US")
    yield driver
    quit_browser(driver)


def by_id(driver: Any, element_id: str) -> Any:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, element_id)


def css(driver: Any, selector: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, selector)


def open_page(driver: Any, url: str, key: str | None = "ops-key") -> None:
    driver.get(url)
    wait_for(lambda: by_id(driver, "ask-lang").get_attribute("value") == "auto")  # the script has run
    if key:
        by_id(driver, "api-key").send_keys(key)


def ask(driver: Any, question: str) -> None:
    from selenium.webdriver.common.keys import Keys

    box = by_id(driver, "question")
    box.clear()
    box.send_keys(question, Keys.ENTER)  # Enter asks, as in a chat box
    wait_for(lambda: by_id(driver, "answer").is_displayed() or "error" in message(driver, "ask"))


def message(driver: Any, tab: str) -> str:
    node = by_id(driver, f"{tab}-message")
    return f"{node.get_attribute('class')} {node.get_attribute('role')} {node.text}"


def dialog_open(driver: Any) -> bool:
    return bool(driver.execute_script("return document.getElementById('chunk-dialog').open"))


def explore(driver: Any, domain: str, button: str, product: str = "") -> None:
    by_id(driver, "tab-explore").click()
    by_id(driver, "domain").clear()
    by_id(driver, "domain").send_keys(domain)
    by_id(driver, "explore-product").clear()
    if product:
        by_id(driver, "explore-product").send_keys(product)
    driver.execute_script("document.getElementById('explore-message').textContent = ''")
    by_id(driver, button).click()
    wait_for(lambda: by_id(driver, "explore-message").text not in ("", "Working…", "Trabajando…"))


def api(server: Server, path: str, body: dict[str, Any], key: str) -> dict[str, Any]:
    request = urllib.request.Request(
        server.url + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "x-api-key": key},
    )
    with urllib.request.urlopen(request, timeout=60) as reply:
        return json.loads(reply.read())


def get(server: Server, path: str, key: str) -> dict[str, Any]:
    request = urllib.request.Request(server.url + path, headers={"x-api-key": key})
    with urllib.request.urlopen(request, timeout=60) as reply:
        return json.loads(reply.read())


def test_a_spanish_question_is_answered_and_its_citation_opens_with_the_quote_highlighted(served):
    from selenium.webdriver.common.keys import Keys

    driver = chromium(DESKTOP, "es-ES")
    try:
        open_page(driver, served.url + "/")
        assert driver.execute_script("return document.documentElement.lang") == "es"
        assert by_id(driver, "ask-submit").text == "Preguntar"
        ask(driver, "¿Cuánto cuesta Faro?")
        assert "19 €" in by_id(driver, "answer-text").text
        quotes = [q.text for q in css(driver, "#citations blockquote")]
        assert quotes and any("19 €" in q for q in quotes)
        cite = css(driver, "#answer-text button.cite")[0]
        assert cite.get_attribute("aria-label").startswith("Fuente 1: Planes de Faro")
        cite.click()
        wait_for(lambda: css(driver, "#chunk-content mark"))
        marks = [m.text for m in css(driver, "#chunk-content mark")]
        assert marks and set(marks) <= set(quotes)  # the cited spans, highlighted in the chunk's own text
        assert marks[0] in by_id(driver, "chunk-content").text
        where = by_id(driver, "chunk-where").text
        assert "precios/faro-planes.html" in where and "Sección" in where and "Líneas" in where
        link = css(driver, "#chunk-where a")[0]
        assert link.get_attribute("href").startswith("https://altamar.example/faro/precios")
        enrichment = by_id(driver, "chunk-enrichment").text
        assert "Resumen" in enrichment and "heuristic" in enrichment
        driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        wait_for(lambda: not dialog_open(driver))
        assert driver.switch_to.active_element == cite  # focus goes back to the citation that opened it
    finally:
        quit_browser(driver)


def test_an_english_question_in_the_english_page_and_the_language_switch(served, page):
    open_page(page, served.url + "/")
    assert page.execute_script("return document.documentElement.lang") == "en"
    ask(page, "How much does Marea cost?")
    assert "Marea" in " ".join(b.text for b in css(page, "#citations button"))
    meta = by_id(page, "answer-meta").text
    assert "Answered by: extractive" in meta and "total" in meta and "HyDE" in meta
    from selenium.webdriver.support.ui import Select

    Select(by_id(page, "ui-lang")).select_by_value("es")
    assert by_id(page, "ask-submit").text == "Preguntar"
    assert page.execute_script("return document.documentElement.lang") == "es"
    assert "$59 / month" in by_id(page, "answer-text").text  # switching the page's language keeps the answer


def test_a_pdf_citation_shows_its_page(served, page):
    open_page(page, served.url + "/")
    ask(page, "¿Quién puede cancelar la suscripción de Faro?")
    source = css(page, "#citations li")[0].text
    assert "Guía de administración de Faro" in source and "Pages 3" in source
    css(page, "#answer-text button.cite")[0].click()
    wait_for(lambda: css(page, "#chunk-content mark"))
    where = by_id(page, "chunk-where").text
    assert "manuales/guia-administracion-faro.pdf" in where and "Pages\n3" in where


def test_an_unanswerable_question_says_so(served, page):
    open_page(page, served.url + "/")
    ask(page, "What is the capital of France?")
    assert "do not hold an answer" in by_id(page, "answer-text").text
    assert not css(page, "#citations li")


def test_the_bootstrap_map_and_a_follow_up_question(served, page):
    open_page(page, served.url + "/")
    explore(page, "Marea", "map-submit")
    assert by_id(page, "map").is_displayed()
    assert by_id(page, "map-summary").text.strip() not in ("", "—")
    assert len(css(page, "#map-topics li")) >= 2
    items = css(page, "#result-list li")
    assert items and all("score" in li.text for li in items)
    follow = css(page, "#map-follow button")
    assert follow, "the map suggests questions to ask next"
    question = follow[0].text
    follow[0].click()
    wait_for(lambda: by_id(page, "answer").is_displayed())
    assert by_id(page, "tab-ask").get_attribute("aria-selected") == "true"
    assert by_id(page, "question").get_attribute("value") == question


def test_a_product_filter_narrows_the_results_and_the_inspector_shows_the_enrichment(served, page):
    open_page(page, served.url + "/")
    explore(page, "¿Cuánto cuesta el plan?", "search-submit")
    unfiltered = {li.get_attribute("data-product") for li in css(page, "#result-list li")}
    assert len(unfiltered) > 1, unfiltered
    explore(page, "¿Cuánto cuesta el plan?", "search-submit", product="Faro")
    filtered = [li.get_attribute("data-product") for li in css(page, "#result-list li")]
    assert filtered and set(filtered) == {"faro"}
    css(page, "#result-list li button")[0].click()
    wait_for(lambda: by_id(page, "chunk-title").text not in ("", "Loading the passage…"))
    enrichment = by_id(page, "chunk-enrichment").text
    for label in ("Summary", "Keywords", "Questions it answers", "Product", "Enriched by"):
        assert label in enrichment
    assert "faro" in enrichment


def test_without_a_key_the_page_says_one_is_needed(served, page):
    open_page(page, served.url + "/", key=None)
    ask(page, "¿Cuánto cuesta Faro?")
    text = message(page, "ask")
    assert "alert" in text and "401" in text and "API key" in text
    assert not by_id(page, "answer").is_displayed()


def test_a_scoped_key_sees_what_the_api_gives_it_and_no_index_status(served, page):
    open_page(page, served.url + "/", key="faro-key")
    explore(page, "¿Cuánto cuesta el plan?", "search-submit")
    shown = [li.get_attribute("data-chunk") for li in css(page, "#result-list li")]
    body = {"query": "¿Cuánto cuesta el plan?", "lang": "auto", "mode": "auto", "filters": {}, "top_k": 10}
    assert shown == [i["chunk_id"] for i in api(served, "/retrieve", body, "faro-key")["items"]]
    everyone = [i["chunk_id"] for i in api(served, "/retrieve", body, "ops-key")["items"]]
    assert shown != everyone
    by_id(page, "tab-status").click()
    wait_for(lambda: "403" in message(page, "status"))
    assert "some documents" in message(page, "status") and not css(page, "#status-body table")


def test_a_sign_in_token_shows_what_its_user_may_read(tmp_path, page):
    """A server with an identity provider: the same key shows the pricing pages (group sales) only once
    the page carries a sales user's token; a bad token is the API's 401, in the page."""
    from tests.jwks_server import AUDIENCE, Issuer

    folder = tmp_path / "corpus"
    shutil.copytree(EXAMPLES, folder)
    (folder / ".sabio-read").write_text("public\n", encoding="utf-8")
    (folder / "precios" / ".sabio-read").write_text("group:sales\n", encoding="utf-8")
    store = tmp_path / "sabio.db"
    assert reindex(store, folder)["returncode"] == 0
    with sqlite3.connect(store) as db:
        pricing = {r[0] for r in db.execute("SELECT document_id FROM documents WHERE key LIKE 'precios/%'")}

    def shows_pricing() -> bool:
        chunks = [li.get_attribute("data-chunk") for li in css(page, "#result-list li")]
        assert chunks, message(page, "explore")
        return any(c.split(":", 1)[0] in pricing for c in chunks)

    with Issuer().running() as issuer:
        env = {
            "SABIO_AUTH": "keys",
            "SABIO_API_KEYS": json.dumps({"app-key": {"name": "app"}}),
            "SABIO_JWT_ISSUER": issuer.url,
            "SABIO_JWT_AUDIENCE": AUDIENCE,
        }
        server = Server(store, env=env)
        try:
            open_page(page, server.url + "/", key="app-key")
            explore(page, "¿Cuánto cuesta el plan?", "search-submit")
            assert pricing and not shows_pricing()
            by_id(page, "id-token").send_keys(issuer.token("ana@acme.com", ["sales"]))
            explore(page, "¿Cuánto cuesta el plan?", "search-submit")
            assert shows_pricing()
            by_id(page, "id-token").clear()
            by_id(page, "id-token").send_keys(issuer.token("ana@acme.com", ["sales"], aud="another-app"))
            explore(page, "¿Cuánto cuesta el plan?", "search-submit")
            assert "401" in message(page, "explore") and "audience" in message(page, "explore").lower()
        finally:
            server.stop()


def test_the_status_page_counts_documents_and_names_failures(served, page):
    open_page(page, served.url + "/")
    by_id(page, "tab-status").click()
    wait_for(lambda: css(page, "#status-body table"))
    captions = [c.text for c in css(page, "#status-body caption")]
    assert {"Documents by status", "Chunks by language", "Chunks by product"} <= set(captions)
    failures = by_id(page, "status-body").find_element("css selector", "table.failures").text
    assert "internal/broken.txt" in failures and "binary" in failures
    assert "Chunks:" in message(page, "status")
    # the documents the store holds, once: /stats gives a "total" beside the counts by status, which the
    # page once added to them ("Documents: 58" for 29)
    stats = get(served, "/stats", "ops-key")
    assert f"Documents: {stats['documents']['total']}" in message(page, "status")
    statuses = by_id(page, "status-body").find_element("css selector", "table").text
    assert "total" not in statuses.split()
    assert not css(page, "#status-body table.held")  # nothing held: no table


def test_the_status_page_lists_deletions_the_guard_holds(served, page):
    from chalicelib.stores.sqlite import SQLiteStore

    store = SQLiteStore(served.store)
    record = next(d for d in store.list_documents() if d.status == "indexed")
    store.put_document(record.model_copy(update={"delete_held_at": 1.0}))
    try:
        assert [h["key"] for h in get(served, "/stats", "ops-key")["held_deletions"]] == [record.key]
        open_page(page, served.url + "/")
        by_id(page, "tab-status").click()
        wait_for(lambda: css(page, "#status-body table.held"))
        held = by_id(page, "status-body").find_element("css selector", "table.held").text
        assert record.key in held and "Deletions held (1)" in held and "To delete them" in held
        # the command that indexed this source (a folder), not one said for every source alike
        assert "sabio index PATH --source-id examples --confirm-deletions" in held
    finally:
        store.put_document(record)


def test_the_status_page_names_the_translator_in_use(served, page):
    name = get(served, "/stats", "ops-key")["translator"]
    open_page(page, served.url + "/")
    by_id(page, "tab-status").click()
    wait_for(lambda: css(page, "#status-translator"))
    label = {
        "apertium": "Apertium",
        "amazon": "Amazon Translate",
        "llm": "language model (LLM)",
        "none": "none",
    }
    assert by_id(page, "status-translator").text == f"Translator: {label[name]}"
    assert by_id(page, "translator-notice").is_displayed() == (name == "none")


def test_without_a_translator_the_page_says_so_once_in_its_language(served):
    """What the notice says, in the page's language, until it is closed; the Status tab says "none"."""
    bare = Server(served.store, env={"SABIO_TRANSLATOR": "none"})  # no keys: the page reads /stats itself
    driver = chromium(DESKTOP, "es-ES")
    try:
        open_page(driver, bare.url + "/", key=None)
        wait_for(lambda: by_id(driver, "translator-notice").is_displayed())
        text = by_id(driver, "translator-text").text
        assert (
            text.startswith("Este servidor no tiene traductor") and "apt-get install apertium-eng-spa" in text
        )
        by_id(driver, "ui-lang").send_keys("English")
        assert by_id(driver, "translator-text").text.startswith("This server has no translator")
        by_id(driver, "translator-dismiss").click()
        assert not by_id(driver, "translator-notice").is_displayed()
        driver.refresh()  # said once: closed, it stays closed in this browser
        wait_for(lambda: by_id(driver, "ask-lang").get_attribute("value") == "auto")
        time.sleep(1)
        assert not by_id(driver, "translator-notice").is_displayed()
        by_id(driver, "tab-status").click()
        wait_for(lambda: css(driver, "#status-translator"))
        assert by_id(driver, "status-translator").text == "Translator: none"
    finally:
        quit_browser(driver)
        bare.stop()


CANNED_ANSWER = {  # one source quoted at line 5 and at lines 7-9: the label said "Lines 5"
    "mode": "documental", "intent": "specific", "query": "q", "answer": "Growth: 59 € [1]", "answered": True,
    "answered_by": "extractive", "model": None, "namespaces": ["es"], "timings_ms": {"total": 3},
    "hyde": None, "rerank": None, "rewrite": None, "items": [],
    "citations": [
        {"n": 1, "chunk_id": "c1", "document_id": "d1", "title": "Precios", "section_title": "Planes",
         "quote": "| Plan | Cuota |", "line_start": 5, "line_end": 5},
        {"n": 1, "chunk_id": "c1", "document_id": "d1", "title": "Precios", "section_title": "Planes",
         "quote": "| Growth | 59 € |\n| Scale | 199 € |\n| Pro | 299 € |", "line_start": 7, "line_end": 9},
    ],
}  # fmt: skip


def test_a_source_quoted_at_several_places_shows_every_line(served, page):
    open_page(page, served.url + "/")
    page.execute_script(  # the server's answer, as it would send one: only the page's reading is tested
        "const canned = arguments[0]; const real = window.fetch;"
        "window.fetch = (url, init) => String(url).endsWith('/answer')"
        " ? Promise.resolve(new Response(JSON.stringify(canned), {status: 200, headers: {'Content-Type':"
        " 'application/json'}})) : real(url, init);",
        CANNED_ANSWER,
    )
    ask(page, "¿Cuánto cuesta Growth?")
    source = css(page, "#citations li")
    assert len(source) == 1 and "Lines 5, 7–9" in source[0].text, source[0].text


def test_it_works_behind_the_api_gateway_stage_path(served, page):
    proxy = StagePath(served.port)
    try:
        open_page(page, proxy.url)  # /api, without the trailing slash, as a user types it
        ask(page, "How do I restore a database to a point in time?")
        css(page, "#answer-text button.cite")[0].click()
        wait_for(lambda: css(page, "#chunk-content mark"))
    finally:
        proxy.close()


def test_the_keyboard_reaches_everything(served, page):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    open_page(page, served.url + "/", key=None)

    def press(key: str) -> str:
        ActionChains(page).send_keys(key).perform()
        return str(page.switch_to.active_element.get_attribute("id") or page.switch_to.active_element.text)

    assert press(Keys.TAB) == "Skip to content"  # the first stop skips the header
    order = [press(Keys.TAB) for _ in range(8)]
    # a server without a translator says so above the question, with a button that closes the notice
    notice = ["translator-dismiss"] if by_id(page, "translator-notice").is_displayed() else []
    expected = [
        "api-key",
        "id-token",
        "ui-lang",
        "tab-ask",
        *notice,
        "question",
        "ask-lang",
        "ask-product",
        "ask-type",
    ]
    expected = expected[:8]
    assert order == expected
    by_id(page, "tab-ask").click()
    assert press(Keys.ARROW_RIGHT) == "tab-explore"
    assert by_id(page, "panel-explore").is_displayed() and not by_id(page, "panel-ask").is_displayed()
    assert press(Keys.END) == "tab-status"
    assert press(Keys.HOME) == "tab-ask"
    assert press(Keys.TAB) == ([*notice, "question"][0])  # the selected tab, then straight into its panel


def axe_violations(driver: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations of WCAG 2.1 A/AA and best practice on the page as it is."""
    driver.execute_script(AXE.read_text(encoding="utf-8"))
    found = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa',"
        " 'best-practice']}}).then((r) => done(r.violations.map((v) => ({id: v.id, impact: v.impact,"
        " nodes: v.nodes.map((n) => n.target.join(' '))}))), (e) => done([{id: 'axe-error', impact:"
        " 'critical', nodes: [String(e)]}]));"
    )
    return [v for v in found if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_no_serious_accessibility_violation_in_any_view(served, size):
    driver = chromium(size, "es-ES")
    try:
        driver.set_script_timeout(60)
        open_page(driver, served.url + "/")
        seen = {"start": axe_violations(driver)}
        ask(driver, "¿Cuánto cuesta Faro?")
        seen["answer"] = axe_violations(driver)
        css(driver, "#answer-text button.cite")[0].click()
        wait_for(lambda: css(driver, "#chunk-content mark"))
        seen["citation"] = axe_violations(driver)
        driver.execute_script("document.getElementById('chunk-dialog').close()")
        explore(driver, "Marea", "map-submit")
        seen["map"] = axe_violations(driver)
        by_id(driver, "tab-status").click()
        wait_for(lambda: css(driver, "#status-body table"))
        seen["status"] = axe_violations(driver)
        assert {view: v for view, v in seen.items() if v} == {}
        # nothing wider than the screen: no sideways scrolling at phone width
        assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        quit_browser(driver)


def test_the_page_is_self_contained_and_its_policy_allows_only_its_own_code(served):
    with urllib.request.urlopen(served.url + "/", timeout=30) as reply:  # no key: the page holds no data
        html = reply.read().decode()
        policy = reply.headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "connect-src 'self'" in policy and "unsafe" not in policy
    assert "http://" not in html.replace("http://www.w3.org", "") and "https://" not in html
    assert "<script src" not in html and '<link rel="stylesheet"' not in html
