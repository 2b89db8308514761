"""Symbols of a source file from its tree-sitter grammar: what each language calls a definition, and where.

One table per language says which syntax nodes are symbols (and the word a reader knows them by) and which
nodes hold nested symbols (class bodies, namespaces, impl blocks). The walk is the same for every language.
A symbol's lines take in the doc comments and attributes right above it, so a chunk carries its
documentation. Grammars ship compiled in their PyPI wheels; nothing is downloaded at run time.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from typing import Any

from chalicelib.extraction.c_macros import blank_macros


@dataclass(frozen=True)
class Symbol:
    path: tuple[str, ...]  # e.g. ("class Client", "def create_ticket")
    start: int  # 1-based, inclusive
    end: int


@dataclass(frozen=True)
class Grammar:
    module: str  # the PyPI wheel's module, e.g. tree_sitter_rust
    symbols: dict[str, str]  # node type -> the word it is shown with ("fn", "class", ...)
    scopes: frozenset[str] = frozenset()  # nodes whose children may be symbols (bodies, namespaces)
    function: str = "language"


# labels whose bodies hold nested symbols (a method in a class); functions' bodies are not searched
NESTS = frozenset(  # fmt: skip
    {
        "class",
        "struct",
        "interface",
        "trait",
        "enum",
        "impl",
        "module",
        "namespace",
        "object",
        "type",
        "extension",
        "actor",  # Swift's other class_declaration kinds
    }
)


_C_FAMILY = {
    "function_definition": "func",
    "struct_specifier": "struct",
    "union_specifier": "union",
    "enum_specifier": "enum",
    "type_definition": "typedef",
    "preproc_function_def": "macro",
}
_C_SCOPES = frozenset(
    {"translation_unit", "preproc_if", "preproc_ifdef", "preproc_else", "linkage_specification"}
)
_JS = {
    "function_declaration": "func",
    "generator_function_declaration": "func",
    "class_declaration": "class",
    "method_definition": "func",
    "interface_declaration": "type",
    "enum_declaration": "type",
    "type_alias_declaration": "type",
    "abstract_class_declaration": "class",
    "module": "namespace",
    "internal_module": "namespace",
    "export_statement": "",  # a wrapper: the doc comment above `export function` belongs to the function
}
_JS_SCOPES = frozenset({"program", "export_statement", "class_body", "interface_body", "statement_block"})

GRAMMARS: dict[str, Grammar] = {
    "javascript": Grammar("tree_sitter_javascript", _JS, _JS_SCOPES),
    "typescript": Grammar("tree_sitter_typescript", _JS, _JS_SCOPES, "language_typescript"),
    "tsx": Grammar("tree_sitter_typescript", _JS, _JS_SCOPES, "language_tsx"),
    "go": Grammar(
        "tree_sitter_go",
        {
            "function_declaration": "func",
            "method_declaration": "func",
            "type_declaration": "type",
        },
        frozenset({"source_file"}),
    ),
    "java": Grammar(
        "tree_sitter_java",
        {
            "class_declaration": "class",
            "interface_declaration": "interface",
            "enum_declaration": "enum",
            "record_declaration": "class",
            "annotation_type_declaration": "interface",
            "method_declaration": "func",
            "constructor_declaration": "func",
        },
        frozenset({"program", "class_body", "interface_body", "enum_body", "enum_body_declarations"}),
    ),
    "bash": Grammar("tree_sitter_bash", {"function_definition": "func"}, frozenset({"program"})),
    "rust": Grammar(
        "tree_sitter_rust",
        {
            "function_item": "fn",
            "function_signature_item": "fn",
            "struct_item": "struct",
            "enum_item": "enum",
            "union_item": "union",
            "trait_item": "trait",
            "impl_item": "impl",
            "mod_item": "module",
            "macro_definition": "macro",
            "type_item": "type",
        },
        frozenset({"source_file", "declaration_list"}),
    ),
    "c": Grammar("tree_sitter_c", _C_FAMILY, _C_SCOPES),
    "cpp": Grammar(
        "tree_sitter_cpp",
        {
            **_C_FAMILY,
            "class_specifier": "class",
            "namespace_definition": "namespace",
            "template_declaration": "",  # a wrapper: its symbol starts at the template line
        },
        _C_SCOPES | {"declaration_list", "field_declaration_list"},
    ),
    "csharp": Grammar(
        "tree_sitter_c_sharp",
        {
            "namespace_declaration": "namespace",
            "file_scoped_namespace_declaration": "namespace",
            "class_declaration": "class",
            "struct_declaration": "struct",
            "record_declaration": "class",
            "interface_declaration": "interface",
            "enum_declaration": "enum",
            "method_declaration": "func",
            "constructor_declaration": "func",
            "property_declaration": "property",
            "local_function_statement": "func",
        },
        frozenset({"compilation_unit", "declaration_list"}),
    ),
    "kotlin": Grammar(
        "tree_sitter_kotlin",
        {
            "class_declaration": "class",
            "object_declaration": "object",
            "companion_object": "object",
            "function_declaration": "fun",
        },
        frozenset({"source_file", "class_body", "enum_class_body"}),
    ),
    "swift": Grammar(
        "tree_sitter_swift",
        {
            "class_declaration": "class",  # struct / enum / extension / actor too: see _label
            "protocol_declaration": "interface",
            "function_declaration": "func",
            "init_declaration": "func",
            "protocol_function_declaration": "func",
        },
        frozenset({"source_file", "class_body", "enum_class_body", "protocol_body"}),
    ),
    "ruby": Grammar(
        "tree_sitter_ruby",
        {"module": "module", "class": "class", "method": "def", "singleton_method": "def"},
        frozenset({"program", "body_statement"}),
    ),
    "php": Grammar(
        "tree_sitter_php",
        {
            "namespace_definition": "namespace",
            "class_declaration": "class",
            "interface_declaration": "interface",
            "trait_declaration": "trait",
            "enum_declaration": "enum",
            "function_definition": "function",
            "method_declaration": "function",
        },
        frozenset({"program", "declaration_list", "compound_statement", "enum_declaration_list"}),
        "language_php",
    ),
    "scala": Grammar(
        "tree_sitter_scala",
        {
            "class_definition": "class",
            "object_definition": "object",
            "trait_definition": "trait",
            "enum_definition": "enum",
            "function_definition": "def",
            "type_definition": "type",
            "package_object": "object",
        },
        frozenset({"compilation_unit", "template_body", "enum_body", "package_clause"}),
    ),
}
GRAMMARS["python"] = Grammar(  # Python is parsed with ast (sabio's own code path); this is its fallback
    "tree_sitter_python",
    {"function_definition": "def", "class_definition": "class", "decorated_definition": ""},
    frozenset({"module", "block"}),
)
_LEADING = ("comment", "line_comment", "block_comment", "multiline_comment", "attribute_item", "annotation")


@cache
def parser(lang: str) -> Any:
    import tree_sitter

    grammar = GRAMMARS.get(lang)
    if grammar is None:
        raise ValueError(f"no grammar for {lang}")
    language = getattr(importlib.import_module(grammar.module), grammar.function)()
    return tree_sitter.Parser(tree_sitter.Language(language))


def symbols(text: str, lang: str) -> list[Symbol]:
    """Every symbol of ``text`` with its path and 1-based line range (doc comments above included)."""
    grammar = GRAMMARS[lang]
    tree = _parse(text, lang)
    out: list[Symbol] = []

    def visit(node: Any, path: tuple[str, ...]) -> None:
        for child in node.named_children:
            target = child
            if grammar.symbols.get(child.type) == "":  # a wrapper (template <...>, decorators)
                inner = [c for c in child.named_children if grammar.symbols.get(c.type)]
                target = inner[-1] if inner else child
            label = grammar.symbols.get(target.type)
            if label and target.type.endswith("_specifier") and target.child_by_field_name("body") is None:
                label = None  # `struct point p;` uses a type, it does not define one
            if label:
                label = _label(target, label)
                here = (*path, f"{label} {_name(target)}".strip())
                start = _leading_start(child, _line(child.start_point))
                out.append(Symbol(here, start, _end_line(child)))
                if label in NESTS:
                    for body in _bodies(target):
                        visit(body, here)
            elif child.type in grammar.scopes:
                visit(child, path)
            elif lang in ("javascript", "typescript", "tsx"):
                _js_function_values(child, path, out)

    visit(tree.root_node, ())
    return out


def _parse(text: str, lang: str) -> Any:
    """The syntax tree; for C and C++ that the grammar cannot read as written, the tree of the text with its
    macros blanked (c_macros) when that one has fewer lines in error."""
    tree = parser(lang).parse(text.encode("utf-8"))
    if lang not in ("c", "cpp") or not tree.root_node.has_error:
        return tree
    blanked = parser(lang).parse(blank_macros(text).encode("utf-8"))
    return blanked if _error_lines(blanked.root_node) < _error_lines(tree.root_node) else tree


def _error_lines(node: Any) -> int:
    """How many lines lie in syntax errors under ``node`` (a missing token counts one)."""
    if node.type == "ERROR" or node.is_missing:
        return _end_line(node) - _line(node.start_point) + 1
    return sum(_error_lines(child) for child in node.children if child.has_error or child.is_missing)


def _bodies(node: Any) -> list[Any]:
    body = node.child_by_field_name("body")
    if body is not None:
        return [body]
    # grammars without a body field (Ruby, Kotlin, Swift enums): the node's own block-like children
    return [c for c in node.named_children if c.type.endswith(("body", "body_statement", "declaration_list"))]


def _label(node: Any, label: str) -> str:
    if node.type == "class_declaration":  # Swift: struct, enum, extension, actor share one node type
        kind = node.child_by_field_name("declaration_kind")
        if kind is not None:
            return kind.text.decode("utf-8", "replace")
    return label


def _name(node: Any) -> str:
    """The symbol's name: its ``name`` field, a C declarator's identifier, or an impl's type and trait."""
    named = node.child_by_field_name("name")
    if named is not None:
        return _text(named)
    if node.type == "impl_item":  # Rust: impl Trait for Type
        trait, kind = node.child_by_field_name("trait"), node.child_by_field_name("type")
        return f"{_text(trait)} for {_text(kind)}" if trait is not None else _text(kind)
    if node.type == "type_declaration":  # Go: type ( Name struct ... )
        for spec in node.named_children:
            named = spec.child_by_field_name("name")
            if named is not None:
                return _text(named)
    declarator = node.child_by_field_name("declarator")
    while declarator is not None:  # C/C++: pointer -> function -> identifier
        inner = declarator.child_by_field_name("declarator")
        if inner is None:  # C++ `T& f()`: the reference declarator holds the function declarator unnamed
            inner = next((c for c in declarator.named_children if c.type.endswith("declarator")), None)
        if inner is None:
            return _text(declarator)
        declarator = inner
    for child in node.named_children:  # Kotlin, Swift: the first identifier-like child
        if child.type in ("type_identifier", "simple_identifier", "identifier", "user_type", "constant"):
            return _text(child)
    return ""


def _js_function_values(node: Any, path: tuple[str, ...], out: list[Symbol]) -> None:
    """``const render = (o) => ...``: a function bound to a name is a symbol too."""
    if node.type not in ("lexical_declaration", "variable_declaration"):
        return
    for decl in node.named_children:
        value = decl.child_by_field_name("value")
        if value is not None and value.type in ("arrow_function", "function_expression", "function"):
            out.append(Symbol((*path, f"func {_name(decl)}"), _line(node.start_point), _end_line(node)))


def _leading_start(node: Any, start: int) -> int:
    """The first line of the doc comments and attributes directly above ``node`` (no blank line between)."""
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type in _LEADING and _end_line(sibling) >= start - 1:
        owner = sibling.prev_named_sibling
        if (
            owner is not None
            and owner.type not in _LEADING
            and _end_line(owner) == _line(sibling.start_point)
        ):
            break  # a trailing comment of the code line above, not this symbol's
        start = _line(sibling.start_point)
        sibling = owner
    return start


def _line(point: Any) -> int:
    return int(point[0]) + 1


def _end_line(node: Any) -> int:
    """1-based last line; a node that ends at column 0 (a line comment with its newline) ends the line before."""
    row, column = node.end_point
    last = row if column == 0 and row > node.start_point[0] else row + 1
    return int(last)


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""
