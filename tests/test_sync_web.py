"""``sabio sync web``: a site served here (a sitemap, robots.txt, pages that change, pages removed, a
redirect loop, a page over the limit, an image) synced into a real SQLite store over real HTTP."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from chalicelib.enrichment.vocabulary import Vocabulary
from chalicelib.ingest.index_status import index_status
from chalicelib.ingest.indexer import Ingestor
from chalicelib.models.records import SearchFilters
from chalicelib.stores.sqlite import SQLiteStore
from chalicelib.sync import web
from chalicelib.sync.targets import IndexTarget
from chalicelib.sync.web_site import WebSource, key_for


def html(title: str, text: str, links: str = "") -> bytes:
    return f"<html><head><title>{title}</title></head><body><h1>{title}</h1><p>{text}</p>{links}</body></html>".encode()


class Site:
    """Pages by path: (content type, body); every response counted by (path, status)."""

    def __init__(self) -> None:
        self.pages: dict[str, tuple[str, bytes]] = {
            "/": (
                "text/html",
                html("Inicio", "Bienvenida al portal de ayuda.", '<a href="/docs/intro">i</a>'),
            ),
            "/docs/intro": ("text/html", html("Introducción", "El portal abre de lunes a viernes.")),
            "/docs/precios.md": (
                "text/markdown",
                "# Precios\n\nEl plan básico cuesta 12 euros al mes.\n".encode(),
            ),
            "/private/notas": ("text/html", html("Privado", "Notas internas del equipo.")),
            "/big": ("text/html", html("Grande", "palabra " * 5000)),
            "/logo.png": ("image/png", b"\x89PNG\r\n\x1a\n"),
        }
        self.sitemap = True
        self.served: Counter[tuple[str, int]] = Counter()

    def etag(self, path: str) -> str:
        return f'"{hash(self.pages[path][1]) & 0xFFFFFFFF:x}"'

    def sitemap_xml(self, base: str) -> bytes:
        locs = "".join(f"<url><loc>{base}{p}</loc></url>" for p in [*self.pages, "/loop"])
        return f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</urlset>'.encode()


@pytest.fixture
def site() -> Iterator[tuple[Site, str]]:
    state = Site()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            return None

        def answer(self, status: int, kind: str = "text/plain", body: bytes = b"", **headers: str) -> None:
            state.served[(self.path, status)] += 1
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name.replace("_", "-"), value)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802 (the http.server API)
            base = f"http://{self.headers['Host']}"
            if self.path == "/robots.txt":
                return self.answer(200, body=b"User-agent: *\nDisallow: /private/\n")
            if self.path == "/sitemap.xml":
                return (
                    self.answer(200, "application/xml", state.sitemap_xml(base))
                    if state.sitemap
                    else self.answer(404)
                )
            if self.path in ("/loop", "/loop2"):
                return self.answer(302, Location="/loop2" if self.path == "/loop" else "/loop")
            if self.path not in state.pages:
                return self.answer(404)
            kind, body = state.pages[self.path]
            etag = state.etag(self.path)
            if self.headers.get("If-None-Match") == etag:
                return self.answer(304, ETag=etag)
            return self.answer(200, kind, body, ETag=etag)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state, f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.fixture
def store(tmp_path: Path) -> SQLiteStore:
    return SQLiteStore(tmp_path / "s.db")


def syncer(store: SQLiteStore, embedder, tmp_path: Path, url: str):  # type: ignore[no-untyped-def]
    ingestor = Ingestor(store, store, embedder, Vocabulary())

    def run(**kw: bool):  # type: ignore[no-untyped-def]
        source = WebSource(url + "/", tmp_path / "sync" / "site", max_bytes=20_000)
        return web.sync(IndexTarget(ingestor), source, "site", **kw)[0]

    return run


def found(store: SQLiteStore, text: str) -> bool:
    return bool(store.keyword_search(text, SearchFilters(), 5))


def test_a_site_is_read_by_its_sitemap_politely_and_cited_by_url(site, store, fake_embedder, tmp_path):
    state, url = site
    report = syncer(store, fake_embedder, tmp_path, url)()
    assert report.added == 3  # /, /docs/intro, /docs/precios.md
    failed, skipped = dict(report.failed), dict(report.skipped)
    assert "redirect" in failed[url + "/loop"] and "larger than" in failed[url + "/big"]
    assert skipped[url + "/private/notas"] == "disallowed by robots.txt"
    assert "image/png" in skipped[url + "/logo.png"]
    assert ("/private/notas", 200) not in state.served  # never fetched
    intro = store.get_document("site", "docs/intro.html")
    assert intro is not None and (store.document_chunks(intro.document_id)[0].url or "").startswith(
        url + "/docs/intro"
    )
    assert found(store, "básico") and found(store, "viernes")


def test_the_next_sync_fetches_only_what_changed_and_deletes_what_is_gone(
    site, store, fake_embedder, tmp_path
):
    state, url = site
    run = syncer(store, fake_embedder, tmp_path, url)
    run()
    fake_embedder.embedded.clear()
    again = run()  # nothing changed: every page answers 304, nothing is read or embedded
    assert (again.added, again.updated, again.deleted, again.unchanged) == (0, 0, 0, 3)
    assert state.served[("/docs/intro", 304)] == 1 and fake_embedder.embedded == []

    state.pages["/docs/intro"] = ("text/html", html("Introducción", "El portal abre también los sábados."))
    del state.pages["/docs/precios.md"]
    changed = run()
    assert (changed.updated, changed.deleted, changed.unchanged) == (1, 1, 1)
    assert state.served[("/docs/intro", 200)] == 2 and state.served[("/", 200)] == 1
    assert found(store, "sábados") and not found(store, "básico")


def test_without_a_sitemap_the_site_is_crawled_on_its_own_host(site, store, fake_embedder, tmp_path):
    state, url = site
    state.sitemap = False
    state.pages["/"] = (
        "text/html",
        html("Inicio", "Portal.", '<a href="/docs/intro">i</a> <a href="https://elsewhere.example/x">x</a>'),
    )
    run = syncer(store, fake_embedder, tmp_path, url)
    report = run()
    assert report.added == 2 and store.get_document("site", "docs/intro.html") is not None
    assert not any("elsewhere" in u for u, _ in [*report.failed, *report.skipped])
    again = run()  # the start page answers 304: its links are the ones it had, and nothing is lost
    assert state.served[("/", 304)] == 1 and (again.deleted, again.unchanged) == (0, 2)
    assert store.get_document("site", "docs/intro.html") is not None


def test_a_site_that_loses_most_pages_at_once_is_held_until_confirmed(site, store, fake_embedder, tmp_path):
    state, url = site
    for n in range(8):
        state.pages[f"/faq/{n}"] = ("text/html", html(f"Pregunta {n}", f"Respuesta número {n} del portal."))
    run = syncer(store, fake_embedder, tmp_path, url)
    assert run().added == 11
    for n in range(8):
        del state.pages[f"/faq/{n}"]
    held = run()
    assert held.deleted == 0 and len(held.held) == 8 and found(store, "Respuesta")
    assert len(index_status(store).held_deletions) == 8
    confirmed = run(confirm_deletions=True)
    assert (
        confirmed.deleted == 8 and not found(store, "Respuesta") and index_status(store).held_deletions == []
    )


def test_page_keys_follow_the_site_paths():
    assert key_for("https://s.example/", ".html") == "index.html"
    assert key_for("https://s.example/docs/intro?x=1#top", ".html") == "docs/intro.html"
    assert key_for("https://s.example/docs/", ".html") == "docs/index.html"
    assert key_for("https://s.example/guia.md", ".md") == "guia.md"
    with pytest.raises(ValueError, match="not a web address"):
        WebSource("ftp://s.example/", Path("/tmp/x"))


def test_one_sync_reads_at_most_its_page_limit_and_loses_nothing_past_it(
    site, store, fake_embedder, tmp_path
):
    state, url = site
    ingestor = IndexTarget(Ingestor(store, store, fake_embedder, Vocabulary()))

    def run(max_pages: int):  # type: ignore[no-untyped-def]
        source = WebSource(url + "/", tmp_path / "sync" / "site", max_pages=max_pages, max_bytes=20_000)
        return web.sync(ingestor, source, "site")[0]

    assert run(10).added == 3
    limited = run(2)  # the third page is past the limit this time: not read, and not deleted either
    assert limited.deleted == 0 and any("2-page limit" in why for _, why in limited.skipped)
    assert len([d for d in store.list_documents("site") if d.status == "indexed"]) == 3


def test_two_addresses_of_one_page_are_one_document(site, store, fake_embedder, tmp_path):
    """``/`` and ``/index.html`` are one key: counted, stored and deleted as one (it said "added 4", stored 3)."""
    state, url = site
    state.pages["/index.html"] = state.pages["/"]
    run = syncer(store, fake_embedder, tmp_path, url)
    first = run()
    assert first.added == 3 and len(store.list_documents("site")) == 3
    assert dict(first.skipped)[url + "/index.html"] == f"the same page as {url}/"
    again = run()
    assert (again.added, again.updated, again.unchanged, again.deleted) == (0, 0, 3, 0)
    del state.pages["/index.html"]  # one address gone, the page is still there
    after = run()
    assert after.deleted == 0 and not after.held
    assert store.get_document("site", "index.html") is not None and found(store, "Bienvenida")
