"""The web page shows a generated answer as it is written: in a real headless Chromium against ``sabio serve``
with a local OpenAI-compatible server that streams its tokens slowly, the words appear while the model is
still writing, then the checked answer with its citations replaces them."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from bench.load import Server, reindex
from bench.web import DESKTOP, chromium, missing, quit_browser, wait_for
from tests.llm_server import LLMTestServer, Reply
from tests.test_streaming import DOCS, GOOD, QUESTION

pytestmark = [
    pytest.mark.slow,
    pytest.mark.browser,
    pytest.mark.skipif(missing() is not None, reason=str(missing())),
]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, LLMTestServer]]:
    tmp = tmp_path_factory.mktemp("web-stream")
    folder = tmp / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    store = tmp / "sabio.db"
    assert reindex(store, folder)["returncode"] == 0
    with LLMTestServer(token_delay_s=0.12) as llm:
        server = Server(store, env={"SABIO_LLM_BASE_URL": llm.base_url, "SABIO_LLM_MODEL": "primary"})
        assert server.banner, "sabio serve did not start"
        yield server, llm
        server.stop()


@pytest.fixture
def page() -> Iterator[Any]:
    driver = chromium(DESKTOP, "es-ES")
    yield driver
    quit_browser(driver)


def text_of(driver: Any, element_id: str) -> str:
    return str(driver.execute_script(f"return document.getElementById('{element_id}').textContent"))


def test_the_page_shows_the_words_as_they_come_then_the_checked_answer(served, page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    server, llm = served
    llm.enqueue(Reply(json.dumps(GOOD, ensure_ascii=False)))
    page.get(server.url + "/")
    wait_for(lambda: page.find_element(By.ID, "ask-lang").get_attribute("value") == "auto")
    page.find_element(By.ID, "question").send_keys(QUESTION, Keys.ENTER)
    seen: list[str] = []  # the answer's text, sampled while the model writes
    deadline = time.monotonic() + 60
    while "Respuesta lista" not in text_of(page, "ask-message") and time.monotonic() < deadline:
        seen.append(text_of(page, "answer-text"))
        time.sleep(0.05)
    final = text_of(page, "answer-text")
    partial = [s for s in dict.fromkeys(seen) if s and s != final]
    assert len(partial) >= 3, seen  # several growing prefixes were on screen before the answer was done
    assert all(GOOD["answer"].startswith(s) for s in partial), partial
    assert final.startswith("La oficina de Valencia abre de lunes a viernes de 9:00 a 18:00")
    cited = page.find_elements(By.CSS_SELECTOR, "#citations li")
    assert len(cited) == 1 and "9:00" in cited[0].text
    assert page.find_element(By.ID, "answer-text").get_attribute("aria-busy") == "false"
