"""A real repository in every language Sabio cuts by symbol: symbols, exact lines, titles, and nothing
left out in silence.

tests/fixtures/polyglot holds one or two files from a real project per language (where each comes from and
its licence: tests/fixtures/polyglot-licenses/SOURCES.md), configuration files, and what a repository
also holds: a .gitignore (root and nested), a lock file, a minified bundle, a PNG, an unknown binary, an
extensionless README; the test adds node_modules, an empty file and a document past the size limit.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from chalicelib.enrichment.vocabulary import Vocabulary
from chalicelib.extraction.code import language_for
from chalicelib.extraction.dispatch import extract
from chalicelib.extraction.grammars import GRAMMARS
from chalicelib.ingest.indexer import IndexReport, IngestConfig, Ingestor
from chalicelib.models.extraction import Section
from chalicelib.stores.sqlite import SQLiteStore
from tests.fakes import HashEmbedder

REPO = Path(__file__).parent / "fixtures" / "polyglot"

# file -> (language, symbol paths that must be sections, by the words a reader of that language knows)
SYMBOLS: dict[str, tuple[str, list[tuple[str, ...]]]] = {
    "python/markupsafe/__init__.py": (
        "python",
        [("def escape",), ("class Markup", "def striptags"), ("class EscapeFormatter", "def format_field")],
    ),
    "javascript/ms/index.js": ("javascript", [("func parse",), ("func fmtShort",), ("func plural",)]),
    "typescript/expo-haptics/Haptics.ts": ("typescript", [("func impactAsync",), ("func selectionAsync",)]),
    "go/uuid/version4.go": ("go", [("func NewRandom",), ("func newRandomFromPool",)]),
    "go/uuid/hash.go": ("go", [("func NewHash",), ("func NewSHA1",)]),
    "java/asyncstorage/SerialExecutor.java": (
        "java",
        [("class SerialExecutor", "func execute"), ("class SerialExecutor", "func scheduleNext")],
    ),
    "rust/itoa/lib.rs": (
        "rust",
        [
            ("struct Buffer",),
            ("impl Buffer", "fn format"),
            ("impl Default for Buffer", "fn default"),
            ("module private", "trait Sealed"),
            ("macro impl_Integer",),
        ],
    ),
    "c/markupsafe/_speedups.c": (
        "c",
        [("func escape_unicode_kind1",), ("func PyInit__speedups",), ("macro DO_ESCAPE",)],
    ),
    "cpp/googletest/gtest-test-part.cc": (
        "cpp",
        [
            ("namespace testing", "func TestPartResult::ExtractSummary"),
            ("namespace testing", "func operator<<"),
            (
                "namespace testing",
                "namespace internal",
                "func HasNewFatalFailureHelper::ReportTestPartResult",
            ),
        ],
    ),
    "csharp/pythonnet/EnumPyIntCodec.cs": (
        "csharp",
        [("namespace Python.Runtime.Codecs", "class EnumPyIntCodec", "func TryDecode")],
    ),
    "kotlin/expo-haptics/HapticsModule.kt": (
        "kotlin",
        [("class HapticsModule", "fun definition"), ("class HapticsModule", "fun vibrate")],
    ),
    "swift/expo-haptics/HapticsModule.swift": (
        "swift",
        [
            ("class HapticsModule", "func definition"),
            ("class HapticsModule", "enum ImpactStyle", "func toFeedbackStyle"),
        ],
    ),
    "ruby/rack/body_proxy.rb": (
        "ruby",
        [("module Rack", "class BodyProxy", "def close"), ("module Rack", "class BodyProxy", "def closed?")],
    ),
    "ruby/rack/runtime.rb": ("ruby", [("module Rack", "class Runtime", "def call")]),
    "php/psr-log/AbstractLogger.php": (
        "php",
        [("class AbstractLogger", "function emergency"), ("class AbstractLogger", "function debug")],
    ),
    "scala/pygments/inheritance.scala": ("scala", [("object Red",), ("enum Tree",)]),
    "scala/pygments/match-types.scala": ("scala", [("type Concat",)]),
    "shell/virtualenv/activate.sh": ("bash", [("func deactivate",), ("func pydoc",)]),
}
CONFIG = {  # no grammar: line windows, still code (exact lines, every language namespace)
    "config/schema.sql": "sql",
    "config/deploy.yaml": "yaml",
    "config/package.json": "json",
    "config/tsconfig.json": "json",
    "config/pyproject.toml": "toml",
    "config/main.tf": "terraform",
    "config/Dockerfile": "dockerfile",
    "config/Makefile": "makefile",
    "config/CMakeLists.txt": "cmake",
    "config/build.gradle": "gradle",
}
SKIPPED = {
    ".gitignore": "hidden",
    "javascript/.gitignore": "hidden",
    "build": "ignored by .gitignore",
    "debug.log": "ignored by .gitignore",
    "javascript/ms/dist": "ignored by javascript/.gitignore",
    "node_modules": "ignored: dependency folder",
    "package-lock.json": "ignored: lock file",
    "assets/app.min.js": "ignored: minified or generated",
    "assets/logo.png": "binary file type (.png)",
    "assets/model.weights": "unknown file type (.weights), not text: binary file (contains NUL bytes)",
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Ingestor, IndexReport, Path]:
    tmp = tmp_path_factory.mktemp("polyglot")
    repo = tmp / "repo"
    shutil.copytree(REPO, repo, symlinks=True, ignore=shutil.ignore_patterns(".ruff_cache", "__pycache__"))
    # a dependency folder (made here: a tracked node_modules/ would read as a build output in this repository)
    (repo / "node_modules" / "ms").mkdir(parents=True)
    shutil.copy(repo / "javascript" / "ms" / "index.js", repo / "node_modules" / "ms" / "index.js")
    (repo / "data").mkdir()
    (repo / "data" / "dump.csv").write_text("id,value\n" + "1,x\n" * 400_000)  # a document past the limit
    (repo / "python" / "markupsafe" / "py.typed").write_text("")
    store = SQLiteStore(tmp / "s.db")
    config = IngestConfig(max_file_bytes=1_000_000)
    ingestor = Ingestor(store, store, HashEmbedder(), Vocabulary(), config)
    report = ingestor.index_folder(repo, "polyglot")
    return ingestor, report, repo


def test_every_language_of_the_issue_has_a_grammar_and_a_fixture():
    required = {"python", "javascript", "typescript", "go", "java", "rust", "c", "cpp", "csharp", "kotlin"}
    required |= {"ruby", "php", "swift", "scala", "bash"}
    assert required <= set(GRAMMARS)
    assert required == {lang for lang, _ in SYMBOLS.values()}
    assert all(language_for(key) == lang for key, (lang, _) in SYMBOLS.items())


@pytest.mark.parametrize("key", sorted(SYMBOLS))
def test_symbols_are_sections_whose_text_is_exactly_their_lines(key):
    lang, expected = SYMBOLS[key]
    data = (REPO / key).read_bytes()
    doc = extract(key, data, max_bytes=10**6)
    assert doc.metadata["language"] == lang and doc.title == key  # a code document's title is its path
    lines = data.decode("utf-8").split("\n")
    sections: dict[tuple[str, ...], Section] = {}
    for section in doc.sections:  # a symbol's first section (a class's closing brace comes later)
        sections.setdefault(section.heading_path[1:], section)
    missing = [p for p in expected if p not in sections]
    assert not missing, (missing, sorted(sections))
    for section in doc.sections:
        assert section.heading_path[0] == Path(key).name  # module > Class > method
        block = section.blocks[0]
        assert block.text == "\n".join(lines[block.line_start - 1 : block.line_end])
    for path in expected:  # a symbol's lines hold its own name
        block = sections[path].blocks[0]
        assert path[-1].split()[-1].split("::")[-1] in block.text, (path, block.text[:200])


@pytest.mark.parametrize("key", sorted(SYMBOLS))
def test_indexed_chunks_are_exact_lines_and_lose_none(indexed, key):
    ingestor, _, repo = indexed
    record = ingestor.chunks.get_document("polyglot", key)
    assert record is not None and record.status == "indexed", record
    chunks = ingestor.chunks.document_chunks(record.document_id)
    lines = (repo / key).read_text(encoding="utf-8").split("\n")
    covered: set[int] = set()
    for c in chunks:
        assert c.title == key and c.kind == "code"
        assert c.line_start is not None and c.line_end is not None
        assert c.content == "\n".join(lines[c.line_start - 1 : c.line_end]), (key, c.heading_path)
        covered |= set(range(c.line_start, c.line_end + 1))
    assert {n for n, text in enumerate(lines, start=1) if text.strip()} <= covered  # no line lost


def test_a_symbol_keeps_the_doc_comment_above_it():
    cases = {
        "rust/itoa/lib.rs": (("struct Buffer",), "/// A correctly sized stack allocation"),
        "typescript/expo-haptics/Haptics.ts": (("func impactAsync",), "@param style"),
        "java/asyncstorage/SerialExecutor.java": (("class SerialExecutor",), "/**"),
        "php/psr-log/AbstractLogger.php": (
            ("class AbstractLogger", "function emergency"),
            "System is unusable.",
        ),
    }
    for key, (symbol, comment) in cases.items():
        doc = extract(key, (REPO / key).read_bytes(), max_bytes=10**6)
        text = next(s for s in doc.sections if s.heading_path[1:] == symbol).blocks[0].text
        name = symbol[-1].split()[-1]
        assert comment in text and text.index(comment) < text.index(name), (key, text[:300])


@pytest.mark.parametrize("key", sorted(CONFIG))
def test_configuration_files_are_read_in_line_windows(indexed, key):
    ingestor, _, repo = indexed
    record = ingestor.chunks.get_document("polyglot", key)
    assert record is not None and record.status == "indexed"
    assert language_for(key) == CONFIG[key]
    lines = (repo / key).read_text(encoding="utf-8").split("\n")
    for c in ingestor.chunks.document_chunks(record.document_id):
        assert c.kind == "code" and c.title == key
        assert c.content == "\n".join(lines[c.line_start - 1 : c.line_end])


def test_nothing_is_left_out_in_silence(indexed):
    ingestor, report, repo = indexed
    skipped = dict(report.skipped)
    assert {k: v for k, v in skipped.items() if k in SKIPPED} == SKIPPED
    assert skipped["python/markupsafe/py.typed"] == "empty file"
    failed = dict(report.failed)
    assert set(failed) == {"data/dump.csv"} and "too large" in failed["data/dump.csv"]
    # every file is indexed, failed with its reason, or named (itself or a folder above it) as skipped
    indexed_keys = {d.key for d in ingestor.chunks.list_documents("polyglot") if d.status == "indexed"}
    for path in repo.rglob("*"):
        if path.is_dir():
            continue
        key = path.relative_to(repo).as_posix()
        named = any(key == s or key.startswith(s + "/") for s in skipped)
        assert (key in indexed_keys) + (key in failed) + named == 1, key
    # prose and unknown text files are read too (extensionless README; .adoc in line windows)
    assert {"README", "RELEASING.adoc"} <= indexed_keys
    assert len(skipped) == len(SKIPPED) + 1


def test_gitignore_negation_and_nesting(tmp_path: Path):
    from chalicelib.ingest.folder_walk import list_folder

    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "a.log").write_text("x")
    (tmp_path / "logs" / "keep.log").write_text("x")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "gen.py").write_text("x = 1\n")
    (tmp_path / "src" / "main.py").write_text("x = 1\n")
    (tmp_path / ".gitignore").write_text("*.log\n!keep.log\n")
    (tmp_path / "src" / ".gitignore").write_text("/gen.py\n")
    listing = list_folder(tmp_path)
    assert listing.keys == ["logs/keep.log", "src/main.py"]
    reasons = dict(listing.skipped)
    assert reasons["logs/a.log"] == "ignored by .gitignore"
    assert reasons["src/gen.py"] == "ignored by src/.gitignore"


def test_code_commented_in_spanish_is_tagged_spanish(ingestor: Ingestor, tmp_path: Path):
    """Comments and docstrings are indented: read without their indentation, they tell the language."""
    (tmp_path / "facturas.py").write_text(
        "class Facturas:\n"
        '    """Genera las facturas del mes y las envía a cada cliente por correo."""\n\n'
        "    def emitir(self, cliente):\n"
        "        # calcula el importe con los impuestos de su país antes de enviarla\n"
        '        """Emite la factura del cliente y guarda una copia en el archivo de la empresa."""\n'
        "        return cliente\n",
        encoding="utf-8",
    )
    ingestor.index_folder(tmp_path, "es-code")
    record = ingestor.chunks.get_document("es-code", "facturas.py")
    assert record is not None
    assert {c.lang for c in ingestor.chunks.document_chunks(record.document_id)} == {"es"}


PREPROCESSED_CPP = """#include <atomic>
namespace store {

class STORE_EXPORT Database {
 public:
  // Opens the database at |path|.
  static Status Open(const std::string& path, Database** db);
  virtual ~Database();
};

class Limiter {
 public:
  Limiter(int max)
      :
#if !defined(NDEBUG)
        max_(max),
#endif  // !defined(NDEBUG)
        allowed_(max) {}

  bool Acquire() EXCLUSIVE_LOCKS_REQUIRED(mu_) { return allowed_-- > 0; }

 private:
  int allowed_ GUARDED_BY(mu_);
};

// Locks the file so that no other process opens the same database.
int LockOrUnlock(int fd, bool lock) {
  return fcntl(fd, F_SETLK, lock);
}

}  // namespace store
"""


def test_cpp_symbols_survive_export_macros_annotations_and_conditionals():
    # unread, `class STORE_EXPORT Database` is a function named Database and a `#if` inside an initialiser
    # list swallows the rest of the file: LockOrUnlock would be found by no symbol
    doc = extract("src/store.cc", PREPROCESSED_CPP.encode(), max_bytes=10**6)
    paths = {s.heading_path[1:]: s.blocks[0] for s in doc.sections}
    assert ("namespace store", "class Database") in paths, sorted(paths)
    assert ("namespace store", "class Limiter", "func Acquire") in paths, sorted(paths)
    lock = paths[("namespace store", "func LockOrUnlock")]
    assert lock.text.startswith("// Locks the file") and lock.text.rstrip().endswith("}")
    lines = PREPROCESSED_CPP.split("\n")  # the file is quoted as it is, macros and all
    assert all(b.text == "\n".join(lines[b.line_start - 1 : b.line_end]) for b in paths.values())
    assert "STORE_EXPORT" in paths[("namespace store", "class Database")].text
