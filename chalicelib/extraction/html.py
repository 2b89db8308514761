"""HTML -> Markdown-shaped text (headings, paragraphs, lists, tables, code), boilerplate dropped."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from bs4 import BeautifulSoup, NavigableString, Tag

from chalicelib.extraction.markdown import markdown_table, parse_blocks, sections_from_blocks
from chalicelib.models.extraction import ExtractedDocument

# Never text: scripts, styles, embedded documents and form controls (a <textarea> left open swallows markup).
_DROP_TAGS = [
    "script", "style", "noscript", "template", "svg", "iframe", "form", "button", "nav", "aside",
    "textarea", "select", "input", "xmp", "noembed", "noframes", "plaintext", "object", "embed", "applet",
]  # fmt: skip
# A tag inside text that should be plain (an unclosed <title> swallowed the page that followed it).
_MARKUP = re.compile(r"<\s*/?\s*[a-zA-Z!?]")
# lxml stops at a stray </html> and loses what follows; browsers ignore these end tags, and so do we.
_STRAY_END = re.compile(r"</\s*(html|body)\s*>", re.I)
_BOILERPLATE = re.compile(
    r"(^|[\s_-])(nav|navbar|menu|footer|site-header|cookie|cookies|breadcrumbs?|sidebar|banner|skip-link)($|[\s_-])",
    re.I,
)
_BOILERPLATE_ROLES = {"navigation", "banner", "contentinfo", "complementary", "search"}
_META_KEYS = (
    "product",
    "category",
    "tags",
    "content_type",
    "author",
    "description",
    "critical",
    "sabio-read",
)
_INLINE_BREAK = {"br"}
_BLOCK_CONTAINERS = {"div", "section", "article", "main", "body", "figure", "details", "summary", "center"}


def extract_html(raw: str, fallback_title: str) -> ExtractedDocument:
    soup = parse(raw)
    meta = _metadata(soup)
    for tag in soup.find_all(_DROP_TAGS):
        tag.decompose()
    if soup.head is not None:
        soup.head.decompose()
    for tag in soup.find_all(["header", "footer"]):
        if tag.find_parent(["article", "main"]) is None or tag.name == "footer":
            tag.decompose()
    for tag in soup.find_all(True):
        if tag.decomposed:
            continue
        role = str(tag.get("role") or "").lower()
        marker = " ".join([*(tag.get("class") or []), str(tag.get("id") or "")])
        if role in _BOILERPLATE_ROLES or (marker.strip() and _BOILERPLATE.search(marker)):
            tag.decompose()
    root = soup.find("main") or soup.find("article") or soup.body or soup
    lines: list[str] = []
    _render(root, lines)
    markdown = "\n".join(lines)
    sections = sections_from_blocks(parse_blocks(markdown))
    title = str(meta.pop("title", None) or _first_heading(soup) or fallback_title)
    return ExtractedDocument(title=title, format="html", sections=sections, metadata=meta)


def parse(raw: str) -> BeautifulSoup:
    """lxml's recovery, plus what it gets wrong: a page swallowed by an unclosed <title> or <style>, and
    content after a stray </html>. (An unclosed <script> swallows the rest as browsers do: dropped, since
    re-reading it would let script text through.)"""
    soup = BeautifulSoup(_STRAY_END.sub("", raw), "lxml")
    for _ in range(8):  # each pass re-parses what one swallowing element held; nesting is bounded
        swallowing = [t for t in soup.find_all(["title", "style"]) if _MARKUP.search(t.get_text())]
        if not swallowing:
            break
        for tag in swallowing:
            _release(soup, tag)
    for tag in soup.find_all("title"):
        if _MARKUP.search(tag.get_text()):
            tag.decompose()
    return soup


def _release(soup: BeautifulSoup, tag: Tag) -> None:
    """Keep a title's text before the first tag (a style's CSS goes); parse the rest as the page it was."""
    text = tag.get_text()
    cut = _MARKUP.search(text)
    assert cut is not None
    tag.string = text[: cut.start()].strip()
    rest = BeautifulSoup(_STRAY_END.sub("", text[cut.start() :]), "lxml")
    for meta in rest.head.find_all(["meta", "link", "title"]) if rest.head else []:
        (soup.head or soup).append(meta.extract())
    moved = list((rest.body or rest).contents)
    if tag.find_parent("body") is not None:
        for node in reversed(moved):
            tag.insert_after(node.extract())
        return
    body = soup.body
    if body is None:
        body = soup.new_tag("body")
        (soup.html or soup).append(body)
    for node in moved:
        body.append(node.extract())


def safe_url(url: object) -> str | None:
    """A link a page may show: http(s) or relative; never javascript:, data:, vbscript:, file: and the like."""
    text = "".join(ch for ch in str(url or "") if ch.isprintable() and not ch.isspace())
    return text if text and urlsplit(text).scheme.lower() in ("http", "https", "") else None


def _metadata(soup: BeautifulSoup) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if soup.title and soup.title.string and soup.title.string.strip():
        meta["title"] = soup.title.string.strip()
    for tag in soup.find_all("meta"):
        name = str(tag.get("name") or tag.get("property") or "").lower().removeprefix("sabio:")
        content = tag.get("content")
        if name in _META_KEYS and content:
            meta[name] = (
                [t.strip() for t in str(content).split(",") if t.strip()] if name == "tags" else content
            )
    html = soup.find("html")
    if isinstance(html, Tag) and html.get("lang"):
        meta["lang"] = str(html.get("lang")).split("-")[0].lower()
    canonical = soup.find("link", rel="canonical")
    if isinstance(canonical, Tag) and safe_url(canonical.get("href")):
        meta["url"] = safe_url(canonical.get("href"))
    return meta


def _first_heading(soup: BeautifulSoup) -> str | None:
    h1 = soup.find("h1")
    return h1.get_text(" ", strip=True) if h1 else None


def _inline(node: Tag | NavigableString) -> str:
    if isinstance(node, NavigableString):
        return str(node)
    if node.name in _INLINE_BREAK:
        return "\n"
    if node.name == "code":
        return "`" + node.get_text() + "`"
    return "".join(_inline(c) for c in node.children if isinstance(c, (Tag, NavigableString)))


def _clean(text: str) -> str:
    return re.sub(r"[ \t\r\f\v]+", " ", re.sub(r"\s*\n\s*", "\n", text)).strip()


def _render(node: Tag, out: list[str]) -> None:
    """Append Markdown for ``node``'s block children to ``out`` (blank line between blocks)."""
    buffer: list[str] = []

    def flush() -> None:
        text = _clean("".join(buffer))
        buffer.clear()
        if text:
            out.extend([re.sub(r"\n", " ", text), ""])

    for child in node.children:
        if isinstance(child, NavigableString):
            if type(child) is NavigableString:  # skips comments, doctype, CDATA
                buffer.append(str(child))
            continue
        if not isinstance(child, Tag):
            continue
        name = child.name
        if re.fullmatch(r"h[1-6]", name):
            flush()
            text = _clean(child.get_text(" "))
            if text:
                out.extend(["#" * int(name[1]) + " " + text, ""])
        elif name == "p" or name == "blockquote":
            flush()
            text = _clean(_inline(child)).replace("\n", " ")
            if text:
                out.extend([("> " if name == "blockquote" else "") + text, ""])
        elif name in ("ul", "ol"):
            flush()
            out.extend([*_list_lines(child, 0), ""])
        elif name == "dl":
            flush()
            out.extend([*_definition_lines(child), ""])
        elif name == "table":
            flush()
            out.extend([*_table_lines(child), ""])
        elif name == "pre":
            flush()
            code = child.find("code")
            lang = ""
            if isinstance(code, Tag):
                lang = next((c[9:] for c in code.get("class") or [] if c.startswith("language-")), "")
            body = child.get_text().strip("\n")
            out.extend(["```" + lang, body, "```", ""])
        elif name in _BLOCK_CONTAINERS or name in ("li", "header", "dd"):
            flush()
            _render(child, out)
        else:
            buffer.append(_inline(child))
    flush()


def _list_lines(lst: Tag, depth: int) -> list[str]:
    lines: list[str] = []
    ordered = lst.name == "ol"
    for i, li in enumerate(lst.find_all("li", recursive=False), start=1):
        nested = [c for c in li.children if isinstance(c, Tag) and c.name in ("ul", "ol")]
        for sub in nested:
            sub.extract()
        text = _clean(_inline(li)).replace("\n", " ")
        bullet = f"{i}." if ordered else "-"
        lines.append("  " * depth + f"{bullet} {text}")
        for sub in nested:
            lines.extend(_list_lines(sub, depth + 1))
    return lines


def _definition_lines(dl: Tag) -> list[str]:
    lines, term = [], ""
    for child in dl.find_all(["dt", "dd"]):
        text = _clean(child.get_text(" "))
        if child.name == "dt":
            term = text
        else:
            lines.append(f"- {term}: {text}" if term else f"- {text}")
    return lines


def _table_lines(table: Tag) -> list[str]:
    rows = []
    for tr in table.find_all("tr"):
        cells = [_clean(c.get_text(" ")).replace("|", "\\|") for c in tr.find_all(["th", "td"])]
        if cells:
            rows.append(cells)
    return markdown_table(rows) if rows else []
