"""Source code -> one section per symbol (function, class, method, ...) with exact line ranges.

Python is parsed with ``ast``; fourteen more languages with the tree-sitter grammars of their PyPI wheels
(``grammars.py``). Configuration and other text files Sabio has no grammar for (SQL, YAML, JSON, TOML,
Terraform, Dockerfile, Makefile, ...) and files that do not parse are one section that the chunker cuts at
line boundaries: the line-window fallback. A code document's title is its path.
"""

from __future__ import annotations

import ast
from pathlib import PurePosixPath

from chalicelib.extraction.code_context import file_comment, first_sentence, leading_comment
from chalicelib.extraction.grammars import GRAMMARS, Symbol, symbols
from chalicelib.models.extraction import Block, ExtractedDocument, Section

# extension -> language: the ones with a grammar are cut by symbol, the rest in line windows
LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".java": "java",
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "bash",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",  # or C++: see _header_language
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".ipp": "cpp",
    ".inl": "cpp",
    ".cs": "csharp",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".rb": "ruby",
    ".rake": "ruby",
    ".gemspec": "ruby",
    ".php": "php",
    ".scala": "scala",
    ".sc": "scala",
    # line windows (no grammar shipped): configuration, data, build files and other languages
    ".sql": "sql",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".json": "json",
    ".jsonc": "json",
    ".toml": "toml",
    ".tf": "terraform",
    ".tfvars": "terraform",
    ".hcl": "terraform",
    ".ini": "ini",
    ".cfg": "ini",
    ".conf": "ini",
    ".properties": "ini",
    ".xml": "xml",
    ".gradle": "gradle",
    ".cmake": "cmake",
    ".mk": "makefile",
    ".dockerfile": "dockerfile",
    ".proto": "protobuf",
    ".graphql": "graphql",
    ".gql": "graphql",
    ".css": "css",
    ".scss": "css",
    ".less": "css",
    ".vue": "vue",
    ".svelte": "svelte",
    ".lua": "lua",
    ".pl": "perl",
    ".pm": "perl",
    ".r": "r",
    ".ps1": "powershell",
    ".bat": "batch",
    ".cmd": "batch",
    ".m": "objective-c",
    ".mm": "objective-c",
    ".dart": "dart",
    ".ex": "elixir",
    ".exs": "elixir",
    ".erl": "erlang",
    ".hs": "haskell",
    ".ml": "ocaml",
    ".clj": "clojure",
    ".groovy": "groovy",
    ".jl": "julia",
    ".zig": "zig",
}
# files known by name rather than extension
NAMES = {
    "dockerfile": "dockerfile",
    "containerfile": "dockerfile",
    "makefile": "makefile",
    "gnumakefile": "makefile",
    "cmakelists.txt": "cmake",
    "rakefile": "ruby",
    "gemfile": "ruby",
    "vagrantfile": "ruby",
    "jenkinsfile": "groovy",
    "procfile": "ini",
}
_CPP_MARKERS = ("class ", "namespace ", "template<", "template <", "public:", "private:", "std::", "::")


def language_for(key: str) -> str | None:
    path = PurePosixPath(key)
    return NAMES.get(path.name.lower()) or LANGUAGES.get(path.suffix.lower())


def extract_code(text: str, key: str) -> ExtractedDocument:
    lang = language_for(key) or "text"
    if lang == "c" and PurePosixPath(key).suffix.lower() == ".h":
        lang = _header_language(text)
    lines = text.split("\n")
    found: list[Symbol] = []
    docs: dict[tuple[str, ...], str] = {}
    purpose = ""
    if lang == "python":
        try:
            found, docs, purpose = _python_symbols(text, lines)
        except (SyntaxError, ValueError):
            found = []  # does not parse: line windows
    elif lang in GRAMMARS:
        try:
            found = symbols(text, lang)
        except (ValueError, ImportError):
            found = []  # grammar missing: line windows
        # only a symbol that holds others situates anything: its own doc comment is in its own lines
        enclosing = {s.path[:i] for s in found for i in range(1, len(s.path))}
        docs = {s.path: leading_comment(lines, s.start, s.end, lang) for s in found if s.path in enclosing}
    purpose = first_sentence(purpose or file_comment(lines, lang))
    name = PurePosixPath(key).name
    sections = _sections(lines, found, name)
    for section in sections:
        section.context = _context(section.heading_path[1:], docs, purpose)
    return ExtractedDocument(
        title=key, format="code", sections=sections, metadata={"language": lang}, source=text
    )


def _header_language(text: str) -> str:
    """A ``.h`` file is C++ when it reads like C++ (classes, namespaces, templates, ``::``)."""
    return "cpp" if any(marker in text for marker in _CPP_MARKERS) else "c"


def _sections(lines: list[str], symbols: list[Symbol], name: str) -> list[Section]:
    """Symbols (innermost wins) plus the runs of module-level lines between them, in file order."""
    owner: list[Symbol | None] = [None] * (len(lines) + 2)
    for sym in sorted(symbols, key=lambda s: s.end - s.start, reverse=True):  # outer first, inner overwrite
        for i in range(sym.start, min(sym.end, len(lines)) + 1):
            owner[i] = sym
    sections: list[Section] = []
    start = 1
    for i in range(2, len(lines) + 2):
        if i == len(lines) + 1 or owner[i] is not owner[start]:
            body = "\n".join(lines[start - 1 : i - 1])
            if body.strip():
                found = owner[start]
                path = (name, *found.path) if found else (name,)
                first, last = _trim(lines, start, i - 1)
                sections.append(
                    Section(
                        heading_path=path,
                        level=len(path),
                        blocks=[Block("source", "\n".join(lines[first - 1 : last]), first, last)],
                        anchor=f"L{first}-L{last}",
                    )
                )
            start = i
    return sections


def _context(path: tuple[str, ...], docs: dict[tuple[str, ...], str], purpose: str) -> tuple[str, ...]:
    """A section's situating lines: the first sentence of each enclosing symbol's doc comment (outermost
    first; its own is in its lines), then what the file says it is for."""
    enclosing = (first_sentence(docs.get(path[:i], "")) for i in range(1, len(path)))
    return tuple(dict.fromkeys(line for line in (*enclosing, purpose) if line))


def _trim(lines: list[str], start: int, end: int) -> tuple[int, int]:
    while start < end and not lines[start - 1].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return start, end


def _python_symbols(text: str, lines: list[str]) -> tuple[list[Symbol], dict[tuple[str, ...], str], str]:
    """Functions and classes (decorators and the ``#`` comments right above them included), each one's
    docstring, and the module's."""
    tree = ast.parse(text)
    out: list[Symbol] = []
    docs: dict[tuple[str, ...], str] = {}

    def visit(node: ast.AST, path: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                kind = "class" if isinstance(child, ast.ClassDef) else "def"
                start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                while start > 1 and lines[start - 2].lstrip().startswith("#"):
                    start -= 1
                here = (*path, f"{kind} {child.name}")
                out.append(Symbol(here, start, child.end_lineno or child.lineno))
                docs[here] = ast.get_docstring(child) or ""
                if isinstance(child, ast.ClassDef):
                    visit(child, here)

    visit(tree, ())
    return out, docs, ast.get_docstring(tree) or ""
