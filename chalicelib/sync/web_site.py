"""A website as a source: its pages found by its sitemap (else a bounded crawl of the same host), fetched
politely and only when changed.

- ``robots.txt`` is honoured for every page (``urllib.robotparser``), and its ``Sitemap:`` lines are read first.
- A page fetched before is asked with ``If-None-Match`` / ``If-Modified-Since``: a 304 is not read again.
- A page over the size limit, of a type Sabio does not read, or that redirects in a loop is reported, not
  indexed; a page the site no longer lists (or answers 404 / 410) is gone.
- A page's key is its path on the site (``docs/intro.html``); its citation link is its URL. Two addresses of
  one key (``/`` and ``/index.html``) are one page: the first read is kept, the other reported as its alias.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
import urllib.robotparser
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

USER_AGENT = "SabioSync/1.0 (+https://github.com/sabio)"
TIMEOUT_S = 20
# what Sabio reads, by content type -> the key's extension (the extractor is chosen by it)
READABLE = {
    "text/html": ".html",
    "application/xhtml+xml": ".html",
    "text/markdown": ".md",
    "text/plain": ".txt",
    "application/pdf": ".pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
}


@dataclass
class Page:
    url: str
    key: str
    body: bytes


@dataclass
class Fetched:
    """One sync's reading of a site."""

    changed: list[Page] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)  # keys answered 304
    gone: list[str] = field(default_factory=list)  # keys of pages the site no longer has
    failed: list[tuple[str, str]] = field(default_factory=list)  # (url, why)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (url, why)
    listed_by: str = "sitemap"  # or "crawl"
    read_as: dict[str, str] = field(default_factory=dict)  # key -> the address it was read from this time


class WebSource:
    def __init__(self, start: str, workdir: Path, max_pages: int = 1000, max_bytes: int = 5_000_000) -> None:
        parts = urllib.parse.urlsplit(start)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"not a web address: {start!r} (give http:// or https://)")
        self.start = start
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.workdir = workdir
        self.max_pages = max_pages
        self.max_bytes = max_bytes
        self.state: dict[str, dict[str, Any]] = self._load()  # url -> key, etag, last_modified, links
        self.robots = urllib.robotparser.RobotFileParser(self.origin + "/robots.txt")

    def fetch(self) -> Fetched:
        self._read_robots()
        out = Fetched()
        urls = self._sitemap_urls()
        if urls is None:
            out.listed_by = "crawl"
        found = self._visit(urls if urls is not None else [self.start], out, crawl=urls is None)
        kept = {known["key"] for url, known in self.state.items() if url in found}
        for url, known in list(self.state.items()):
            if url not in found:
                if known["key"] not in kept:  # another address of the page still has it
                    out.gone.append(known["key"])
                del self.state[url]
        return out

    def save(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        (self.workdir / "state.json").write_text(json.dumps({"start": self.start, "pages": self.state}))

    # ------------------------------------------------------------ listing
    def _read_robots(self) -> None:
        try:
            body = self._get(self.origin + "/robots.txt", {})[1]
            self.robots.parse(body.decode("utf-8", "replace").splitlines())
        except (urllib.error.URLError, OSError, ValueError):
            self.robots.parse([])  # no robots.txt: everything may be fetched

    def _sitemap_urls(self) -> list[str] | None:
        """Every page the sitemap(s) list (a sitemap index is followed one level), or None without one."""
        sitemaps = list(self.robots.site_maps() or []) or [self.origin + "/sitemap.xml"]
        pages: list[str] = []
        found = False
        for sitemap in sitemaps:
            for loc, is_index in _locations(self._quiet(sitemap)):
                found = True
                if is_index:
                    pages += [u for u, nested in _locations(self._quiet(loc)) if not nested]
                else:
                    pages.append(loc)
        return list(dict.fromkeys(u for u in pages if self._same_site(u))) if found else None

    def _quiet(self, url: str) -> bytes:
        try:
            return self._get(url, {})[1]
        except (urllib.error.URLError, OSError, ValueError):
            return b""

    # ------------------------------------------------------------ fetching
    def _visit(self, urls: list[str], out: Fetched, crawl: bool) -> set[str]:
        """Fetch ``urls`` (and, crawling, the same-site links of each HTML page), up to ``max_pages``: the
        pages the site still has (read, unchanged, or not readable this time: an error is not a deletion)."""
        queue, seen, found = deque(urls), set(urls), set[str]()
        while queue:
            url = queue.popleft()
            if len(found) >= self.max_pages:
                out.skipped.append((url, f"over the {self.max_pages}-page limit of one sync"))
                found.add(url)  # not read this time, not gone either
                continue
            if not self.robots.can_fetch(USER_AGENT, url):
                out.skipped.append((url, "disallowed by robots.txt"))
                continue
            failures = len(out.failed)
            page = self._page(url, out)
            if page is None:
                if len(out.failed) > failures:
                    found.add(url)
                continue
            found.add(url)
            if crawl:  # a page answered 304 is crawled through the links it had when last read
                for link in self.state.get(url, {}).get("links", []):
                    if link not in seen and self._same_site(link):
                        seen.add(link)
                        queue.append(link)
        return found

    def _page(self, url: str, out: Fetched) -> Page | None:
        known = self.state.get(url, {})
        headers = {}
        if known.get("etag"):
            headers["If-None-Match"] = known["etag"]
        if known.get("last_modified"):
            headers["If-Modified-Since"] = known["last_modified"]
        try:
            response, body = self._get(url, headers)
        except urllib.error.HTTPError as exc:
            if exc.code == 304 and known:
                if self._alias(url, known["key"], out):
                    return None
                out.unchanged.append(known["key"])
                return Page(url, known["key"], b"")
            if exc.code not in (404, 410):
                out.failed.append((url, f"HTTP {exc.code}: {exc.reason}"))
            return None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            out.failed.append((url, str(getattr(exc, "reason", exc))))
            return None
        kind = response.headers.get_content_type()
        if kind not in READABLE:
            out.skipped.append((url, f"not a document Sabio reads ({kind})"))
            return None
        if len(body) > self.max_bytes:
            out.failed.append((url, f"larger than {self.max_bytes} bytes"))
            return None
        page = Page(url, key_for(url, READABLE[kind]), body)
        if self._alias(url, page.key, out):
            return None
        self.state[url] = {
            "key": page.key,
            "etag": response.headers.get("ETag") or "",
            "last_modified": response.headers.get("Last-Modified") or "",
            "links": _links(body, url) if page.key.endswith(".html") else [],
        }
        out.changed.append(page)
        return page

    def _alias(self, url: str, key: str, out: Fetched) -> bool:
        """Whether ``key`` was read from another address in this sync (``/`` and ``/index.html``): then this
        address is reported as its alias and forgotten, and the page is indexed and counted once."""
        first = out.read_as.setdefault(key, url)
        if first == url:
            return False
        out.skipped.append((url, f"the same page as {first}"))
        self.state.pop(url, None)
        return True

    def _get(self, url: str, headers: dict[str, str]) -> tuple[Any, bytes]:
        request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, **headers})
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:  # noqa: S310 (http/https only)
            return response, response.read(self.max_bytes + 1)

    def _same_site(self, url: str) -> bool:
        return url.startswith(self.origin + "/") or url == self.origin

    def _load(self) -> dict[str, dict[str, Any]]:
        state = self.workdir / "state.json"
        return json.loads(state.read_text())["pages"] if state.exists() else {}


def key_for(url: str, extension: str) -> str:
    """``https://site/docs/intro`` -> ``docs/intro.html``; ``/`` -> ``index.html`` (query and fragment dropped)."""
    path = urllib.parse.unquote(urllib.parse.urlsplit(url).path).strip("/") or "index"
    if url.split("?")[0].split("#")[0].endswith("/") and path != "index":
        path += "/index"
    return path if path.lower().endswith(extension) else path + extension


def _locations(xml: bytes) -> list[tuple[str, bool]]:
    """(loc, is a nested sitemap) of a sitemap or sitemap index; entities are never resolved."""
    if not xml.strip():
        return []
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    try:
        root = etree.fromstring(xml, parser)
    except etree.XMLSyntaxError:
        return []
    index = etree.QName(root).localname == "sitemapindex"
    return [(loc.text.strip(), index) for loc in root.iter("{*}loc") if loc.text and loc.text.strip()]


def _links(body: bytes, base: str) -> list[str]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(body, "lxml")
    links = (urllib.parse.urljoin(base, str(a.get("href"))) for a in soup.find_all("a", href=True))
    return list(
        dict.fromkeys(link.split("#")[0] for link in links if link.startswith(("http://", "https://")))
    )
