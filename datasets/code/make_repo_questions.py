"""Writes repo_questions.jsonl: questions over three whole repositories, written by hand before Sabio indexed them.

Each repository is kept as it is in ``repos/`` (a ``git archive`` of the pinned commit, licence inside):
leveldb (C++, BSD-3-Clause), javapoet (Java, Apache-2.0), anyhow (Rust, MIT / Apache-2.0). A question names
its ``kind``: ``identifier`` when it names a function, type, field or macro as the code spells it, ``plain``
when it says what it wants in the words of someone who has not read the code. A target is ``(file,
anchor)``: a verbatim fragment of one line of that file; a function declared in a header and defined in a
source file lists both, and either answers.

    python bench/codeset/make_repo_questions.py
"""

import json
from pathlib import Path

L, J, R = "leveldb", "javapoet", "anyhow"
JP = "src/main/java/com/squareup/javapoet/"

# (repo, question language, kind, question, [(file, anchor), ...])
QUESTIONS = [
    # leveldb: names
    (
        L,
        "en",
        "identifier",
        "Where is DBImpl::MakeRoomForWrite implemented?",
        [("db/db_impl.cc", "Status DBImpl::MakeRoomForWrite(bool force) {")],
    ),
    (
        L,
        "en",
        "identifier",
        "What does VersionSet::PickCompaction do?",
        [("db/version_set.cc", "Compaction* VersionSet::PickCompaction() {")],
    ),
    (
        L,
        "en",
        "identifier",
        "How does BlockBuilder::Add handle restart points?",
        [("table/block_builder.cc", "void BlockBuilder::Add(const Slice& key, const Slice& value) {")],
    ),
    (
        L,
        "es",
        "identifier",
        "¿Dónde se implementa NewBloomFilterPolicy?",
        [
            ("util/bloom.cc", "const FilterPolicy* NewBloomFilterPolicy(int bits_per_key) {"),
            ("include/leveldb/filter_policy.h", "NewBloomFilterPolicy(int bits_per_key);"),
        ],
    ),
    (
        L,
        "en",
        "identifier",
        "What is the default value of write_buffer_size?",
        [("include/leveldb/options.h", "size_t write_buffer_size")],
    ),
    (
        L,
        "en",
        "identifier",
        "LRUCache::Insert implementation",
        [("util/cache.cc", "Cache::Handle* LRUCache::Insert(")],
    ),
    (
        L,
        "en",
        "identifier",
        "How does log::Writer::AddRecord split a record across blocks?",
        [("db/log_writer.cc", "Status Writer::AddRecord(const Slice& slice) {")],
    ),
    (
        L,
        "es",
        "identifier",
        "¿Qué hace Arena::AllocateAligned?",
        [
            ("util/arena.cc", "char* Arena::AllocateAligned(size_t bytes) {"),
            ("util/arena.h", "char* AllocateAligned(size_t bytes);"),
        ],
    ),
    (
        L,
        "en",
        "identifier",
        "How does ParseFileName recognise the kind of a file?",
        [("db/filename.cc", "bool ParseFileName(const std::string& filename, uint64_t* number,")],
    ),
    (
        L,
        "en",
        "identifier",
        "Where is GetVarint32Ptr declared and what does it return?",
        [
            ("util/coding.h", "inline const char* GetVarint32Ptr(const char* p, const char* limit,"),
            ("util/coding.h", "const char* GetVarint32Ptr(const char* p, const char* limit, uint32_t* v);"),
        ],
    ),
    (
        L,
        "es",
        "identifier",
        "¿Cómo funciona DB::Open?",
        [
            (
                "db/db_impl.cc",
                "Status DB::Open(const Options& options, const std::string& dbname, DB** dbptr) {",
            )
        ],
    ),
    (
        L,
        "en",
        "identifier",
        "WriteBatch::Iterate",
        [("db/write_batch.cc", "Status WriteBatch::Iterate(Handler* handler) const {")],
    ),
    (
        L,
        "en",
        "identifier",
        "How is SkipList::Insert implemented?",
        [("db/skiplist.h", "void SkipList<Key, Comparator>::Insert(const Key& key) {")],
    ),
    (
        L,
        "en",
        "identifier",
        "What does RepairDB do?",
        [
            ("db/repair.cc", "Status RepairDB(const std::string& dbname, const Options& options) {"),
            ("include/leveldb/db.h", "LEVELDB_EXPORT Status RepairDB(const std::string& dbname,"),
        ],
    ),
    # leveldb: plain words
    (
        L,
        "en",
        "plain",
        "How does the database slow down writers when too many files pile up in the first level?",
        [("db/db_impl.cc", "config::kL0_SlowdownWritesTrigger) {")],
    ),
    (
        L,
        "en",
        "plain",
        "How is the part of a key shared with the previous key left out when a table block is built?",
        [("table/block_builder.cc", "const size_t non_shared = key.size() - shared;")],
    ),
    (
        L,
        "en",
        "plain",
        "How do I make every read check the data's checksums?",
        [("include/leveldb/options.h", "bool verify_checksums = false;")],
    ),
    (
        L,
        "es",
        "plain",
        "¿Cómo decide la base de datos qué nivel compactar a continuación?",
        [
            ("db/version_set.cc", "void VersionSet::Finalize(Version* v) {"),
            ("db/version_set.cc", "Compaction* VersionSet::PickCompaction() {"),
        ],
    ),
    (
        L,
        "en",
        "plain",
        "How many hash probes does the bloom filter use for a given number of bits per key?",
        [("util/bloom.cc", "k_ = static_cast<size_t>(bits_per_key * 0.69);")],
    ),
    (
        L,
        "en",
        "plain",
        "Which entry does the block cache throw out when it is full?",
        [("util/cache.cc", "while (usage_ > capacity_ && lru_.next != &lru_) {")],
    ),
    (
        L,
        "en",
        "plain",
        "How does it stop two processes from opening the same database directory at once?",
        [
            ("util/env_posix.cc", "int LockOrUnlock(int fd, bool lock) {"),
            ("db/db_impl.cc", "Status s = env_->LockFile(LockFileName(dbname_), &db_lock_);"),
        ],
    ),
    (
        L,
        "es",
        "plain",
        "¿Cómo se recuperan las escrituras del registro después de una caída?",
        [("db/db_impl.cc", "Status DBImpl::RecoverLogFile(uint64_t log_number, bool last_log,")],
    ),
    (
        L,
        "en",
        "plain",
        "How are integers written in a variable number of bytes?",
        [("util/coding.cc", "char* EncodeVarint32(char* dst, uint32_t v) {")],
    ),
    (
        L,
        "en",
        "plain",
        "When can a compaction drop a deletion marker for good?",
        [
            ("db/version_set.cc", "bool Compaction::IsBaseLevelForKey(const Slice& user_key) {"),
            ("db/db_impl.cc", "compact->compaction->IsBaseLevelForKey(ikey.user_key)) {"),
        ],
    ),
    (
        L,
        "es",
        "plain",
        "¿Cómo leo una vista fija de la base de datos mientras siguen llegando escrituras?",
        [("include/leveldb/db.h", "virtual const Snapshot* GetSnapshot() = 0;")],
    ),
    (
        L,
        "en",
        "plain",
        "Where is a block's checksum verified when it is read from disk?",
        [("table/format.cc", "if (options.verify_checksums) {")],
    ),
    # javapoet: names
    (
        J,
        "en",
        "identifier",
        "What does NameAllocator.newName do when the name is already taken?",
        [(JP + "NameAllocator.java", "public String newName(String suggestion, Object tag) {")],
    ),
    (
        J,
        "en",
        "identifier",
        "How does ClassName.bestGuess parse a class name string?",
        [(JP + "ClassName.java", "public static ClassName bestGuess(String classNameString) {")],
    ),
    (
        J,
        "es",
        "identifier",
        "¿Qué hace JavaFile.Builder.skipJavaLangImports?",
        [(JP + "JavaFile.java", "public Builder skipJavaLangImports(boolean skipJavaLangImports) {")],
    ),
    (
        J,
        "en",
        "identifier",
        "MethodSpec.overriding with an ExecutableElement",
        [(JP + "MethodSpec.java", "public static Builder overriding(ExecutableElement method) {")],
    ),
    (
        J,
        "en",
        "identifier",
        "How does TypeName.box turn a primitive into its wrapper class?",
        [(JP + "TypeName.java", "public TypeName box() {")],
    ),
    (
        J,
        "en",
        "identifier",
        "Where is CodeBlock.joining defined?",
        [
            (
                JP + "CodeBlock.java",
                "public static Collector<CodeBlock, ?, CodeBlock> joining(String separator) {",
            )
        ],
    ),
    (
        J,
        "es",
        "identifier",
        "¿Cómo se crea una clase anónima con TypeSpec.anonymousClassBuilder?",
        [
            (
                JP + "TypeSpec.java",
                "public static Builder anonymousClassBuilder(String typeArgumentsFormat, Object... args) {",
            )
        ],
    ),
    (
        J,
        "en",
        "identifier",
        "What does CodeBlock.Builder.beginControlFlow emit?",
        [(JP + "CodeBlock.java", "public Builder beginControlFlow(String controlFlow, Object... args) {")],
    ),
    (
        J,
        "en",
        "identifier",
        "How does LineWrapper.wrappingSpace decide where to break a line?",
        [(JP + "LineWrapper.java", "void wrappingSpace(int indentLevel) throws IOException {")],
    ),
    (
        J,
        "en",
        "identifier",
        "FieldSpec.Builder.initializer",
        [(JP + "FieldSpec.java", "public Builder initializer(String format, Object... args) {")],
    ),
    (
        J,
        "es",
        "identifier",
        "¿Qué hace AnnotationSpec.get con una anotación en tiempo de ejecución?",
        [
            (
                JP + "AnnotationSpec.java",
                "public static AnnotationSpec get(Annotation annotation, boolean includeDefaultValues) {",
            )
        ],
    ),
    (
        J,
        "en",
        "identifier",
        "How does JavaFile.writeTo(Filer) write a generated source file?",
        [(JP + "JavaFile.java", "public void writeTo(Filer filer) throws IOException {")],
    ),
    # javapoet: plain words
    (
        J,
        "en",
        "plain",
        "How do I pick a variable name that does not clash with a Java keyword?",
        [
            (JP + "NameAllocator.java", "public static String toJavaIdentifier(String suggestion) {"),
            (JP + "NameAllocator.java", "public String newName(String suggestion, Object tag) {"),
        ],
    ),
    (
        J,
        "en",
        "plain",
        "Where are the imports of a generated file collected and written?",
        [(JP + "JavaFile.java", "private void emit(CodeWriter codeWriter) throws IOException {")],
    ),
    (
        J,
        "es",
        "plain",
        "¿Dónde se escapan las comillas y los caracteres especiales de un literal de cadena?",
        [(JP + "Util.java", "static String stringLiteralWithDoubleQuotes(String value, String indent) {")],
    ),
    (
        J,
        "en",
        "plain",
        "Which error do I get when a format string ends with a lone dollar sign?",
        [(JP + "CodeBlock.java", 'checkArgument(p < format.length() - 1, "dangling $ at end");')],
    ),
    (
        J,
        "en",
        "plain",
        "How do I write a method that overrides one from an interface, keeping its parameters and exceptions?",
        [(JP + "MethodSpec.java", "public static Builder overriding(ExecutableElement method) {")],
    ),
    (
        J,
        "en",
        "plain",
        "How long may a generated line be before it is wrapped?",
        [
            (
                JP + "CodeWriter.java",
                "this(out, indent, Collections.emptyMap(), staticImports, alwaysQualify);",
            ),
            (JP + "LineWrapper.java", "private final int columnLimit;"),
        ],
    ),
    (
        J,
        "es",
        "plain",
        "¿Cómo se representa un tipo genérico con sus argumentos, por ejemplo una lista de cadenas?",
        [
            (
                JP + "ParameterizedTypeName.java",
                "public static ParameterizedTypeName get(ClassName rawType, TypeName... typeArguments) {",
            )
        ],
    ),
    (
        J,
        "en",
        "plain",
        "How do I set the indentation used when the file is written out?",
        [(JP + "JavaFile.java", "public Builder indent(String indent) {")],
    ),
    (
        J,
        "en",
        "plain",
        "Why can't an int or void be turned into a class name?",
        [
            (
                JP + "ClassName.java",
                'checkArgument(!clazz.isPrimitive(), "primitive types cannot be represented as a ClassName");',
            )
        ],
    ),
    (
        J,
        "en",
        "plain",
        "How is a wildcard type like ? extends Number built?",
        [(JP + "WildcardTypeName.java", "public static WildcardTypeName subtypeOf(TypeName upperBound) {")],
    ),
    (
        J,
        "es",
        "plain",
        "¿Cómo se añaden constantes a un enum generado?",
        [(JP + "TypeSpec.java", "public Builder addEnumConstant(String name, TypeSpec typeSpec) {")],
    ),
    (
        J,
        "en",
        "plain",
        "What happens when positional and numbered arguments are mixed in one format string?",
        [
            (
                JP + "CodeBlock.java",
                'checkArgument(!hasIndexed || !hasRelative, "cannot mix indexed and positional parameters");',
            )
        ],
    ),
    # anyhow: names
    (
        R,
        "en",
        "identifier",
        "How is with_context implemented for Result?",
        [("src/context.rs", "impl<T, E> Context<T, E> for Result<T, E>")],
    ),
    (
        R,
        "en",
        "identifier",
        "What does Error::root_cause return?",
        [("src/error.rs", "pub fn root_cause(&self) -> &(dyn StdError + 'static) {")],
    ),
    (
        R,
        "es",
        "identifier",
        "¿Cómo funciona Error::downcast_ref?",
        [("src/error.rs", "pub fn downcast_ref<E>(&self) -> Option<&E>")],
    ),
    (R, "en", "identifier", "Where is the bail! macro defined?", [("src/macros.rs", "macro_rules! bail {")]),
    (
        R,
        "en",
        "identifier",
        "What does Error::msg build an error from?",
        [("src/error.rs", "pub fn msg<M>(message: M) -> Self")],
    ),
    (
        R,
        "en",
        "identifier",
        "How does the Chain iterator walk source()?",
        [("src/chain.rs", "impl<'a> Iterator for Chain<'a> {")],
    ),
    (
        R,
        "es",
        "identifier",
        "¿Qué hace into_boxed_dyn_error?",
        [
            (
                "src/error.rs",
                "pub fn into_boxed_dyn_error(self) -> Box<dyn StdError + Send + Sync + 'static> {",
            )
        ],
    ),
    (
        R,
        "en",
        "identifier",
        "Option context: impl Context for Option",
        [("src/context.rs", "impl<T> Context<T, Infallible> for Option<T> {")],
    ),
    # anyhow: plain words
    (
        R,
        "en",
        "plain",
        "How is the list of underlying causes printed when the error is shown with {:?}?",
        [("src/fmt.rs", 'write!(f, "\\n\\nCaused by:")?;')],
    ),
    (
        R,
        "en",
        "plain",
        "Which environment variables turn on capturing a stack trace with the error?",
        [("src/error.rs", "/// variables `RUST_LIB_BACKTRACE=1` or `RUST_BACKTRACE=1` must be defined")],
    ),
    (
        R,
        "es",
        "plain",
        "¿Cómo se devuelve un error temprano si una condición no se cumple?",
        [("src/macros.rs", "macro_rules! ensure {")],
    ),
    (
        R,
        "en",
        "plain",
        "How do I attach a message explaining what was being done when an error happened?",
        [
            ("src/error.rs", "pub fn context<C>(self, context: C) -> Self"),
            ("src/context.rs", "impl<T, E> Context<T, E> for Result<T, E>"),
        ],
    ),
    (
        R,
        "en",
        "plain",
        "How do I check whether an error is of a particular concrete type?",
        [("src/error.rs", "pub fn is<E>(&self) -> bool")],
    ),
    (
        R,
        "en",
        "plain",
        "How do I build an error from a formatted string on the fly?",
        [("src/macros.rs", "macro_rules! anyhow {")],
    ),
    (
        R,
        "es",
        "plain",
        "¿Dónde se libera la memoria del error cuando se descarta?",
        [("src/error.rs", "unsafe fn object_drop<E>(e: Own<ErrorImpl>) {")],
    ),
    (
        R,
        "en",
        "plain",
        "How does the alternate {:#} display show the whole chain of causes on one line?",
        [("src/fmt.rs", "if f.alternate() {")],
    ),
]


def main() -> None:
    out = Path(__file__).with_name("repo_questions.jsonl")
    counters: dict[str, int] = {}
    rows = []
    for repo, lang, kind, text, targets in QUESTIONS:
        counters[repo] = counters.get(repo, 0) + 1
        rows.append(
            {
                "id": f"{repo}-{counters[repo]:02d}",
                "repo": repo,
                "lang": lang,
                "kind": kind,
                "question": text,
                "targets": [{"file": f, "anchor": a} for f, a in targets],
            }
        )
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(rows)} questions to {out}")


if __name__ == "__main__":
    main()
