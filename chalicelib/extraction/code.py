"""Source code -> one section per symbol (function, class, method) with exact line ranges.

Python is parsed with ``ast``; JavaScript/TypeScript, Go, Java and shell with tree-sitter grammars shipped
in their PyPI wheels. A language without a parser (or a file that does not parse) is one section that the
chunker cuts at line boundaries: the documented fallback.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from chalicelib.models.extraction import Block, ExtractedDocument, Section

LANGUAGES = {
    ".py": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".java": "java",
    ".sh": "bash",
    ".bash": "bash",
}
# tree-sitter node types that are symbols, and the ones whose children are symbols too (class bodies)
_SYMBOLS = {
    "function_declaration",
    "generator_function_declaration",
    "class_declaration",
    "method_definition",
    "method_declaration",
    "constructor_declaration",
    "interface_declaration",
    "enum_declaration",
    "type_declaration",
    "function_definition",
    "abstract_class_declaration",
    "type_alias_declaration",
}
_CONTAINERS = {
    "class_declaration",
    "abstract_class_declaration",
    "class_body",
    "interface_declaration",
    "export_statement",
    "program",
    "source_file",
    "declaration_list",
}


@dataclass(frozen=True)
class Symbol:
    path: tuple[str, ...]  # e.g. ("class Client", "def create_ticket")
    start: int  # 1-based, inclusive
    end: int


def language_for(key: str) -> str | None:
    return LANGUAGES.get(PurePosixPath(key).suffix.lower())


def extract_code(text: str, key: str) -> ExtractedDocument:
    lang = language_for(key) or "text"
    lines = text.split("\n")
    try:
        symbols = _python_symbols(text) if lang == "python" else _tree_sitter_symbols(text, lang)
    except (SyntaxError, ValueError, ImportError):
        symbols = []  # unparseable or no grammar: line-window fallback
    name = PurePosixPath(key).name
    sections = _sections(lines, symbols, name)
    return ExtractedDocument(
        title=name, format="code", sections=sections, metadata={"language": lang}, source=text
    )


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


def _trim(lines: list[str], start: int, end: int) -> tuple[int, int]:
    while start < end and not lines[start - 1].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return start, end


def _python_symbols(text: str) -> list[Symbol]:
    tree = ast.parse(text)
    out: list[Symbol] = []

    def visit(node: ast.AST, path: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                kind = "class" if isinstance(child, ast.ClassDef) else "def"
                start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                here = (*path, f"{kind} {child.name}")
                out.append(Symbol(here, start, child.end_lineno or child.lineno))
                if isinstance(child, ast.ClassDef):
                    visit(child, here)

    visit(tree, ())
    return out


_GRAMMARS = {
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "java": ("tree_sitter_java", "language"),
    "bash": ("tree_sitter_bash", "language"),
}


def _parser(lang: str) -> Any:
    import importlib

    import tree_sitter

    if lang not in _GRAMMARS:
        raise ValueError(f"no parser for {lang}")
    module, function = _GRAMMARS[lang]
    language = getattr(importlib.import_module(module), function)()
    return tree_sitter.Parser(tree_sitter.Language(language))


def _label(node_type: str) -> str:
    if "class" in node_type:
        return "class"
    if node_type in (
        "interface_declaration",
        "type_declaration",
        "enum_declaration",
        "type_alias_declaration",
    ):
        return "type"
    return "func"


def _tree_sitter_symbols(text: str, lang: str) -> list[Symbol]:
    tree = _parser(lang).parse(text.encode("utf-8"))
    out: list[Symbol] = []

    def name_of(node: Any) -> str:
        named = node.child_by_field_name("name")
        if named is None and node.type == "type_declaration" and node.named_children:
            named = node.named_children[0].child_by_field_name("name")
        return named.text.decode("utf-8", "replace") if named is not None else node.type

    def visit(node: Any, path: tuple[str, ...]) -> None:
        for child in node.named_children:
            if child.type in _SYMBOLS:
                label = _label(child.type)
                here = (*path, f"{label} {name_of(child)}")
                out.append(Symbol(here, child.start_point[0] + 1, child.end_point[0] + 1))
                body = child.child_by_field_name("body")
                if body is not None and label in ("class", "type"):
                    visit(body, here)
            elif child.type in ("lexical_declaration", "variable_declaration"):
                for decl in child.named_children:
                    value = decl.child_by_field_name("value")
                    if value is not None and value.type in (
                        "arrow_function",
                        "function_expression",
                        "function",
                    ):
                        out.append(
                            Symbol(
                                (*path, f"func {name_of(decl)}"),
                                child.start_point[0] + 1,
                                child.end_point[0] + 1,
                            )
                        )
            elif child.type in _CONTAINERS:
                visit(child, path)

    visit(tree.root_node, ())
    return out
