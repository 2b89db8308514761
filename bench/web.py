"""Sabio's web page in a real headless Chromium (Debian's chromium + chromium-driver through selenium): the
driver the browser tests use, a stage-path proxy like API Gateway's, and ``python bench/web.py`` for the
screenshots in docs/ (desktop and phone width, the page answering a question over examples/).
"""

from __future__ import annotations

import http.client
import http.server
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
DESKTOP = (1280, 900)
PHONE = (390, 844)


def missing() -> str | None:
    """Why the browser cannot run here (None when it can)."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists():
            return f"{path} is not installed (Debian packages chromium and chromium-driver; .ci/run installs them)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    return None


def chromium(size: tuple[int, int] = DESKTOP, lang: str = "en-US") -> Any:
    """A headless Chromium with no network of its own (this machine's network is closed) and a fresh profile."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="sabio-chromium-")
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        f"--window-size={size[0]},{size[1]}",
        f"--lang={lang}",
    ):
        options.add_argument(flag)
    options.add_experimental_option("prefs", {"intl.accept_languages": lang})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_window_size(*size)
    driver._sabio_profile = profile  # removed by quit()
    return driver


def quit_browser(driver: Any) -> None:
    profile = getattr(driver, "_sabio_profile", None)
    driver.quit()
    if profile:
        shutil.rmtree(profile, ignore_errors=True)


class StagePath:
    """API Gateway's shape on this machine: ``http://127.0.0.1:PORT/api/...`` is forwarded to ``upstream/...``
    (the stage prefix removed), so the page is tested where a deployed one lives."""

    def __init__(self, upstream_port: int, stage: str = "api") -> None:
        prefix = f"/{stage}"

        class Forward(http.server.BaseHTTPRequestHandler):
            def _forward(self) -> None:
                if not (self.path == prefix or self.path.startswith(prefix + "/")):
                    self.send_error(403, "Missing Authentication Token")  # what API Gateway says
                    return
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                upstream = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=120)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                upstream.request(self.command, self.path[len(prefix) :] or "/", body=body, headers=headers)
                reply = upstream.getresponse()
                data = reply.read()
                self.send_response(reply.status)
                for k, v in reply.getheaders():
                    if k.lower() not in (
                        "transfer-encoding",
                        "connection",
                        "content-length",
                        "server",
                        "date",
                    ):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                upstream.close()

            do_GET = do_POST = _forward

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Forward)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{prefix}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def wait_for(condition: Any, seconds: float = 60.0) -> Any:
    """Poll ``condition()`` until it returns something truthy (the page talks to a real server)."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"still waiting after {seconds:.0f} s")
        time.sleep(0.1)


def shoot(url: str, path: Path, size: tuple[int, int], lang: str, question: str, cite: bool) -> Path:
    """The page at ``url`` after asking ``question`` (and opening its first citation), saved to ``path``."""
    from selenium.webdriver.common.by import By

    driver = chromium(size, lang)
    try:
        driver.get(url)
        driver.find_element(By.ID, "question").send_keys(question)
        driver.find_element(By.ID, "ask-submit").click()
        wait_for(lambda: driver.find_element(By.ID, "answer").is_displayed())
        if cite:
            driver.find_element(By.CSS_SELECTOR, "#answer-text button.cite").click()
            wait_for(lambda: driver.find_elements(By.ID, "chunk-quote"))
        driver.save_screenshot(str(path))
        return path
    finally:
        quit_browser(driver)


def screenshots(out: Path = ROOT / "docs") -> list[Path]:
    """Index a copy of examples/, serve it, and take the README's two screenshots: a Spanish answer with its
    first citation open at desktop width, an English answer at phone width."""
    from bench.load import Server, reindex

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "corpus"
        shutil.copytree(ROOT / "examples", folder)
        store = Path(tmp) / "sabio.db"
        assert reindex(store, folder)["returncode"] == 0
        server = Server(store)
        try:
            url = server.url + "/"
            return [
                shoot(url, out / "web-desktop.png", DESKTOP, "es-ES", "¿Cuánto cuesta Faro?", cite=True),
                shoot(url, out / "web-phone.png", PHONE, "en-US", "How do I restore a database?", cite=False),
            ]
        finally:
            server.stop()


if __name__ == "__main__":
    reason = missing()
    if reason:
        sys.exit(reason)
    for path in screenshots():
        print(path)
