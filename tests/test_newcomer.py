"""What a newcomer meets on a first folder, as they meet it (the ``sabio`` command and ``make``, in processes of
their own): the translator set-up, the notice when none runs (in the user's language, once), a busy port, a
mistyped or empty store, ``sabio stats``, an answer's sources, the readers notice only where it is true."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from chalicelib.translators.apertium import installed_modes
from tests.conftest import ROOT

DOCS = {
    "restore.md": "# Restoring a database with Ancla\n\nA 50 GB database usually restores in under 20 "
    "minutes. Ancla never overwrites the original database unless you pass --in-place.\n",
    "precios.md": "# Precios de Marea\n\n| Plan | Contactos | Cuota mensual |\n|---|---|---|\n"
    "| Starter | hasta 2.000 | 15 € |\n| Growth | hasta 10.000 | 59 € |\n| Scale | hasta 50.000 | 199 € |\n",
}
ACROSS = "¿Cuánto tarda en restaurarse una base de datos de 50 GB con Ancla?"
SPANISH_OFF = "La traducción está desactivada (SABIO_TRANSLATOR=none)"
ENGLISH_OFF = "Translation is off (SABIO_TRANSLATOR=none)"
ENGLISH_NONE = "No translator: a question in another language than the documents'"


def sabio(*args: str, store: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sabio.cli", "--store", str(store), *args],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """DOCS indexed (an English page and a Spanish table) into a store of their own."""
    tmp = tmp_path_factory.mktemp("newcomer")
    folder = tmp / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    store = tmp / "sabio.db"
    done = sabio("index", str(folder), store=store, env={"SABIO_TRANSLATOR": "none"})
    assert done.returncode == 0, done.stdout + done.stderr
    return store


# ------------------------------------------------------------------------------------------ without a translator


@pytest.mark.parametrize(("lang", "said"), [("es_ES.UTF-8", SPANISH_OFF), ("en_GB.UTF-8", ENGLISH_OFF)])
def test_index_says_once_in_the_users_language_that_translation_is_off(tmp_path, lang, said):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text(DOCS["restore.md"], encoding="utf-8")
    env = {"SABIO_TRANSLATOR": "none", "LC_ALL": "", "LC_MESSAGES": "", "LANGUAGE": "", "LANG": lang}
    done = sabio("index", str(folder), store=tmp_path / "s.db", env=env)
    assert done.returncode == 0 and done.stdout.count(said) == 1, done.stdout


def test_without_apertium_the_notice_says_how_to_install_it(tmp_path):
    """SABIO_TRANSLATOR=auto on a machine without Apertium (its tools are not on PATH here)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text(DOCS["restore.md"], encoding="utf-8")
    env = {"PATH": str(tmp_path), "LC_ALL": "C", "LANG": "C"}  # C names no language: English
    done = sabio("index", str(folder), store=tmp_path / "s.db", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(ENGLISH_NONE) == 1 and "sudo apt-get install apertium-eng-spa" in done.stdout


@pytest.mark.parametrize("command", ["query", "answer"])
def test_a_question_across_languages_says_once_in_its_language_that_it_was_not_translated(indexed, command):
    done = sabio(command, ACROSS, store=indexed, env={"SABIO_TRANSLATOR": "none"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(SPANISH_OFF) == 1, done.stdout


@pytest.mark.skipif(not installed_modes(), reason="Apertium's Spanish-English pair is not installed")
def test_with_apertium_a_spanish_question_is_answered_from_an_english_page_without_a_notice(indexed):
    done = sabio("answer", ACROSS, store=indexed)
    assert done.returncode == 0, done.stderr
    assert "searched in en as:" in done.stdout and "under 20 minutes" in done.stdout
    assert "SABIO_TRANSLATOR" not in done.stdout


def test_the_notice_follows_the_json_on_stderr(indexed):
    done = sabio("query", ACROSS, "--json", store=indexed, env={"SABIO_TRANSLATOR": "none"})
    assert json.loads(done.stdout)["applied"]["untranslated"] == "en"  # stdout stays JSON
    assert SPANISH_OFF in done.stderr


# ------------------------------------------------------------------------------------------ serve


def _listening() -> tuple[socket.socket, int]:
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    return holder, holder.getsockname()[1]


def test_serve_on_a_busy_port_says_so_in_one_line(indexed):
    """It printed "Sabio is serving" with the other server's counts, then a 45-line traceback."""
    holder, port = _listening()
    try:
        started = time.monotonic()
        done = sabio("serve", "--port", str(port), store=indexed)
    finally:
        holder.close()
    assert done.returncode == 2 and time.monotonic() - started < 60
    assert "Traceback" not in done.stderr + done.stdout and "serving" not in done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert re.fullmatch(
        rf"error: port {port} on 127\.0\.0\.1 is in use by pid {os.getpid()} \(.*python.*\): .*", lines[0]
    )


@pytest.mark.slow
def test_serve_says_once_that_no_translator_runs(indexed):
    from bench.load import free_port

    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "sabio.cli", "--store", str(indexed), "serve", "--port", str(port)],
        cwd=ROOT,
        env={**os.environ, "SABIO_TRANSLATOR": "none", "LC_ALL": "es_ES.UTF-8"},
        stdout=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(process.stdout or []), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not any(line.startswith("note: ") for line in lines):
            time.sleep(0.2)
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    reader.join(10)
    banner, note = next(
        ((a, b) for a, b in zip(lines, lines[1:], strict=False) if a.startswith("Sabio is serving")), ("", "")
    )
    assert str(indexed) in banner and note.startswith(f"note: {SPANISH_OFF}"), note


# ------------------------------------------------------------------------------------------ the store


@pytest.mark.parametrize("command", [["query", "hola"], ["answer", "hola"], ["stats"], ["insights"]])
def test_a_mistyped_store_is_an_error_and_nothing_is_created(tmp_path, command):
    """It created no/such/ and an empty store, and answered nothing with exit status 0."""
    store = tmp_path / "no" / "such" / "dir.db"
    done = sabio(*command, store=store)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"error: no store at {store}: index a folder into it first"), done.stderr
    assert not (tmp_path / "no").exists()


def test_an_empty_store_says_so(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    store = tmp_path / "s.db"
    assert sabio("index", str(empty), store=store).returncode == 0
    for command in ("query", "answer"):
        done = sabio(command, "¿Cuánto cuesta Faro?", store=store, env={"SABIO_TRANSLATOR": "none"})
        assert done.returncode == 0 and f"El almacén {store} aún no tiene documentos" in done.stdout, (
            done.stdout
        )
        assert "SABIO_TRANSLATOR" not in done.stdout  # one thing to say: the store is empty


def _git(repo: Path, *args: str) -> None:
    ident = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", *ident, *args], cwd=repo, check=True, capture_output=True)


def test_stats_lists_failures_held_deletions_with_their_command_and_the_translator(tmp_path):
    """``sabio stats`` printed the chunk store's counts: "held_deletions": [] while /stats listed seven."""
    folder, repo, store = tmp_path / "docs", tmp_path / "handbook", tmp_path / "s.db"
    for where in (folder, repo):
        where.mkdir()
        for n in range(7):
            (where / f"p{n}.md").write_text(f"# Política {n}\n\nLa política {n} se revisa cada año.\n")
    (folder / "bad.md").write_bytes(b"\xff\xfe\x00bad")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "one")
    assert sabio("index", str(folder), "--source-id", "rrhh", store=store).returncode == 1  # bad.md failed
    assert sabio("sync", "git", str(repo), store=store).returncode == 0
    empty = tmp_path / "unmounted"
    empty.mkdir()
    assert sabio("index", str(empty), "--source-id", "rrhh", store=store).returncode == 1  # held
    for n in range(7):
        (repo / f"p{n}.md").unlink()
    _git(repo, "commit", "-qam", "a script gone wrong")
    assert sabio("sync", "git", str(repo), store=store).returncode == 1  # held

    done = sabio("stats", store=store, env={"SABIO_TRANSLATOR": "none"})
    stats = json.loads(done.stdout)
    assert [f["key"] for f in stats["failures"]] == ["bad.md"]
    commands = {(h["source_id"], h["confirm"]) for h in stats["held_deletions"]}
    assert commands == {
        ("rrhh", "sabio index PATH --source-id rrhh --confirm-deletions"),
        ("handbook", f"sabio sync git {repo} --confirm-deletions"),
    }
    assert len(stats["held_deletions"]) == 15 and stats["translator"] == "none"  # rrhh: 7 and bad.md


# ------------------------------------------------------------------------------------------ what index and answer print


def test_an_answer_names_each_source_once_with_the_lines_of_its_quotes(indexed):
    """``[1] Title: "..."`` was repeated for every row quoted from one table."""
    done = sabio("answer", "¿Cuánto cuesta el plan Growth de Marea?", store=indexed)
    assert done.returncode == 0, done.stderr
    sources = [line for line in done.stdout.splitlines() if re.match(r"\s+\[\d+\] ", line)]
    assert len(sources) == len({s.split("]")[0] for s in sources}) >= 1, done.stdout
    quotes = [line for line in done.stdout.splitlines() if line.startswith('      "')]
    assert any("Growth" in q for q in quotes) and len(quotes) >= 2, done.stdout
    assert re.search(r"\(lines [\d, -]+\):$", sources[0]), sources[0]


def test_the_readers_notice_is_said_only_where_a_server_reads_as_someone(tmp_path):
    """On make demo's keyless store everything is read by every request: the notice alarmed and said nothing
    true there."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# Vacaciones\n\nCada persona tiene 23 días de vacaciones.\n")
    keyless = sabio("index", str(folder), store=tmp_path / "a.db")
    assert keyless.returncode == 0 and "readers:" not in keyless.stdout, keyless.stdout
    keys = {"SABIO_AUTH": "keys", "SABIO_API_KEYS": json.dumps({"sha256:" + "0" * 64: {"name": "ops"}})}
    with_keys = sabio("index", str(folder), store=tmp_path / "b.db", env=keys)
    assert with_keys.returncode == 0 and "readers: 1 document(s) name no readers" in with_keys.stdout


# ------------------------------------------------------------------------------------------ make and its script


def _bin(tmp_path: Path, uid: int, apt: str | None) -> dict[str, str]:
    """A PATH of the tools scripts/translator.sh uses, ``id -u`` answering ``uid``, and an apt-get that
    ``apt`` says what does (None: no apt-get; "fails"; "installs": writes the pair's mode files)."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("bash", "grep", "tail", "mktemp", "rm", "cat", "touch", "mkdir", "chmod"):
        (tools / tool).symlink_to(shutil.which(tool) or tool)
    (tools / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    modes = tmp_path / "modes"
    if apt == "fails":
        (tools / "apt-get").write_text(
            "#!/bin/sh\necho 'E: Unable to locate package apertium-eng-spa' >&2\nexit 100\n"
        )
    elif apt == "installs":
        (tools / "apt-get").write_text(
            f"#!/bin/sh\nmkdir -p {modes}\ntouch {modes}/spa-eng.mode {modes}/eng-spa.mode\n"
            f"printf '#!/bin/sh\\n' > {tools}/apertium-wblank-mode\nchmod +x {tools}/apertium-wblank-mode\n"
        )
    for script in tools.iterdir():
        script.chmod(0o755)
    return {"PATH": str(tools), "SABIO_APERTIUM_MODES": str(modes)}


@pytest.mark.parametrize(
    ("uid", "apt", "said"),
    [
        (
            1000,
            "fails",
            "translator: none. Questions in another language than the documents' will be weaker; "
            "to translate them: sudo apt-get install apertium-eng-spa",
        ),
        (
            1000,
            None,
            "install Apertium's apertium-eng-spa pair (https://wiki.apertium.org/wiki/Installation)",
        ),
        (0, "fails", "could not install apertium-eng-spa (E: Unable to locate package apertium-eng-spa)"),
        (0, "installs", "translator: Apertium installed"),
    ],
    ids=["user-with-apt", "user-without-apt", "root-apt-fails", "root-apt-installs"],
)
def test_the_translator_set_up_installs_when_it_can_and_else_says_the_command(tmp_path, uid, apt, said):
    env = _bin(tmp_path, uid, apt)
    done = subprocess.run(
        [str(ROOT / "scripts" / "translator.sh")], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0  # the demo goes on whatever happened
    assert said in done.stdout + done.stderr, done.stdout + done.stderr
    again = subprocess.run([str(ROOT / "scripts" / "translator.sh")], env=env, capture_output=True, text=True)
    installed = "translator: Apertium (Spanish <-> English) is installed"
    assert (installed in again.stdout) == (apt == "installs")


def test_make_demo_sets_up_the_translator_and_make_pytest_installs_the_test_tools_first(tmp_path):
    """The README's one test file needed make test first: make pytest installs the dev tools as it does."""
    venv = f"VENV={tmp_path / 'venv'}"
    demo = subprocess.run(
        ["make", "--no-print-directory", "-n", "demo", venv], cwd=ROOT, capture_output=True, text=True
    )
    lines = demo.stdout.splitlines()
    assert lines.index("scripts/translator.sh") < next(i for i, x in enumerate(lines) if "sabio index" in x)
    one = subprocess.run(
        ["make", "--no-print-directory", "-n", "pytest", "T=tests/test_cli.py", venv],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert one.returncode == 0, one.stderr
    assert "[dev," in one.stdout and one.stdout.strip().endswith("-m pytest tests/test_cli.py")
