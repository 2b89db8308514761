"""The ``sabio`` command as a user runs it: a table, an exit status scripts can trust, answers."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT


def sabio(*args: str, store: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sabio.cli", "--store", str(store), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
def test_index_prints_a_table_and_fails_only_when_a_document_failed(tmp_path: Path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "ok.md").write_text("# Vacaciones\n\nCada persona tiene 23 días laborables de vacaciones.\n")
    store = tmp_path / "s.db"

    good = sabio("index", str(folder), "--source-id", "rrhh", store=store)
    assert good.returncode == 0, good.stderr
    assert re.search(r"\| added +\| +1 \|", good.stdout) and re.search(r"\| failed +\| +0 \|", good.stdout)

    (folder / "bad.md").write_bytes(b"\xff\xfe\x00bad")
    bad = sabio("index", str(folder), "--source-id", "rrhh", store=store)
    assert bad.returncode == 1
    assert re.search(r"\| unchanged +\| +1 \|", bad.stdout) and "FAILED  bad.md: binary" in bad.stdout

    answer = sabio("answer", "¿Cuántos días de vacaciones tengo?", store=store)
    assert answer.returncode == 0 and "23 días" in answer.stdout and "[1]" in answer.stdout
    assert re.search(r"Answer \(extractive, confidence 0\.\d\d\)", answer.stdout)  # how sure it is
    # the question's time is printed apart from loading the models (it was "3224 ms" with the load in it)
    assert "model loaded in" in answer.stdout
    # a question the documents do not answer says so, and why
    elsewhere = sabio("answer", "Who won the 2018 World Cup?", store=store)
    assert elsewhere.returncode == 0 and "I did not find an answer to this" in elsewhere.stdout
    assert "(Not answered: " in elsewhere.stdout


@pytest.mark.slow
def test_chat_answers_each_follow_up_in_its_conversation(tmp_path: Path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for country, price in (("España", "30 euros"), ("México", "590 pesos")):
        (folder / f"{price.split()[0]}.md").write_text(
            f"# Brisa en {country}\n\nEl plan Pro de Brisa cuesta {price} al mes en {country}.\n",
            encoding="utf-8",
        )
    store = tmp_path / "s.db"
    assert sabio("index", str(folder), store=store).returncode == 0
    lines = [
        "¿Cuánto cuesta el plan Pro de Brisa en España?",
        "¿y en México?",
        "x" * 2001,
        "/new",
        "¿y en México?",
    ]
    chat = subprocess.run(
        [sys.executable, "-m", "sabio.cli", "--store", str(store), "chat"],
        cwd=ROOT,
        input="\n".join([*lines, "/quit", "never asked"]) + "\n",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert chat.returncode == 0, chat.stderr
    first, then, again = chat.stdout.split("> ")[1:]  # a transcript: each question above its answer
    assert "30 euros" in first and "Answer (extractive, confidence 0." in first  # as `sabio answer` says it
    assert "(searched as: ¿Cuánto cuesta el plan Pro de Brisa en México?)" in then and "590 pesos" in then
    assert "(a new conversation)" in then and "searched as" not in again  # /new: nothing to follow up
    assert "error: query: String should have at most 2000 characters" in chat.stderr  # and it went on
    assert "never asked" not in chat.stdout

    as_json = subprocess.run(
        [sys.executable, "-m", "sabio.cli", "--store", str(store), "chat", "--json"],
        cwd=ROOT,
        input="\n".join(lines[:2] + ["/new", lines[1]]) + "\n",
        capture_output=True,
        text=True,
        timeout=300,
    )
    responses = [json.loads(line) for line in as_json.stdout.splitlines()]  # JSON lines, and nothing else
    merged = "¿Cuánto cuesta el plan Pro de Brisa en México?"
    assert [r["standalone_query"] == merged for r in responses] == [False, True, False]
    assert "(a new conversation)" in as_json.stderr


def vacation_store(tmp_path: Path) -> Path:
    """A store of one Spanish page (23 days of holiday), indexed by the command."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "ok.md").write_text("# Vacaciones\n\nCada persona tiene 23 días laborables de vacaciones.\n")
    store = tmp_path / "s.db"
    assert sabio("index", str(folder), store=store).returncode == 0
    return store


def test_a_reader_that_goes_away_is_no_traceback(tmp_path: Path):
    # `sabio query ... | head -1`: the pipe closes before the answer is printed
    store = vacation_store(tmp_path)
    process = subprocess.Popen(
        [sys.executable, "-m", "sabio.cli", "--store", str(store), "query", "vacaciones"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    process.stdout.close()
    _, err = process.communicate(timeout=300)
    assert process.returncode == 141 and "Traceback" not in err and "BrokenPipe" not in err, err


def test_a_held_back_answer_shows_its_confidence_apart_from_the_threshold(capsys: pytest.CaptureFixture[str]):
    """A confidence of 0.7908 held back under 0.7911 is not printed "confidence 0.79" (the threshold, as its
    note rounds it, reads 0.79 too)."""
    from types import SimpleNamespace

    from sabio.cli.asking import _print_answer

    held = SimpleNamespace(
        answered_by="extractive",
        model=None,
        confidence=0.7908,
        verified=True,
        citation_issues=[],
        answer="I am not sure the documents answer this.",
        answered=False,
        notes=["Not answered: the answer's confidence 0.7908 is under 0.7911."],
        citations=[],
    )
    _print_answer(held, 0.7911)
    assert "Answer (extractive, confidence 0.7908):" in capsys.readouterr().out
    _print_answer(SimpleNamespace(**{**vars(held), "confidence": 0.93, "answered": True}), 0.7911)
    assert "Answer (extractive, confidence 0.93):" in capsys.readouterr().out


def test_missing_folder_is_a_clear_error_and_leaves_no_store(tmp_path: Path):
    result = sabio("index", str(tmp_path / "nope"), store=tmp_path / "s.db")
    assert result.returncode == 2 and "not a folder" in result.stderr
    # an empty store would let `sabio stats` report 0 documents where it says "no store at ..."
    assert not (tmp_path / "s.db").exists()


def test_a_request_the_api_would_refuse_is_a_clear_error_not_a_traceback(tmp_path: Path):
    store = vacation_store(tmp_path)
    for args, said in (
        (("answer", "hola", "--top-k", "0"), "error: top_k: Input should be greater than or equal to 1"),
        (("query", "hola", "--top-k", "1000"), "error: top_k: Input should be less than or equal to"),
        (("answer", "palabra " * 300), "error: query: String should have at most 2000 characters"),
    ):
        result = sabio(*args, store=store)
        assert result.returncode == 2 and said in result.stderr, args
        assert "Traceback" not in result.stderr


def test_an_empty_folder_does_not_wipe_the_index(tmp_path: Path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(7):
        (folder / f"p{n}.md").write_text(f"# Política {n}\n\nLa política {n} se revisa cada año.\n")
    store = tmp_path / "s.db"
    assert sabio("index", str(folder), "--source-id", "rrhh", store=store).returncode == 0
    gone = tmp_path / "unmounted"
    gone.mkdir()

    held = sabio("index", str(gone), "--source-id", "rrhh", store=store)
    assert held.returncode == 1 and re.search(r"\| deletions held +\| +7 \|", held.stdout)
    assert "HELD    7 documents are gone" in held.stdout and "--confirm-deletions" in held.stdout

    confirmed = sabio("index", str(gone), "--source-id", "rrhh", "--confirm-deletions", store=store)
    assert confirmed.returncode == 0 and re.search(r"\| deleted +\| +7 \|", confirmed.stdout)


def test_sync_git_indexes_a_repository_and_cites_its_commit(tmp_path: Path):
    repo = tmp_path / "handbook"
    repo.mkdir()
    ident = ("-c", "user.name=t", "-c", "user.email=t@example.com")
    for args in (
        ("init", "-q", "-b", "main"),
        ("remote", "add", "origin", "https://github.com/acme/handbook.git"),
    ):
        subprocess.run(["git", *args], cwd=repo, check=True)
    (repo / "vacaciones.md").write_text(
        "# Vacaciones\n\nCada persona tiene 23 días laborables de vacaciones.\n"
    )
    subprocess.run(["git", *ident, "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", *ident, "commit", "-qm", "one"], cwd=repo, check=True)
    store = tmp_path / "s.db"

    synced = sabio("sync", "git", str(repo), store=store)
    assert synced.returncode == 0, synced.stderr
    assert "as source 'handbook'" in synced.stdout and re.search(r"\| added +\| +1 \|", synced.stdout)
    found = sabio("query", "vacaciones", "--json", store=store)
    assert "https://github.com/acme/handbook/blob/" in found.stdout and "/vacaciones.md" in found.stdout

    missing = sabio("sync", "git", str(tmp_path / "nope"), store=store)
    assert missing.returncode == 2 and "git clone failed" in missing.stderr


def test_every_command_and_flag_is_documented_in_docs_cli():
    """docs/cli.md is where a reader looks up a flag: a command or flag added without it fails here."""
    import argparse

    from sabio.cli import build_parser

    doc = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    headings = [line for line in doc.splitlines() if line.startswith("### ")]
    undocumented = []

    def walk(parser: argparse.ArgumentParser, words: list[str]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    command = " ".join([*words, name])
                    if not any(f"`{command}" in line for line in headings):  # a section of its own
                        undocumented.append(command)
                    walk(sub, [*words, name])
            undocumented.extend(
                f"{' '.join(words)} {flag}"
                for flag in action.option_strings
                if flag not in ("-h", "--help") and f"`{flag}" not in doc
            )

    walk(build_parser(), ["sabio"])
    assert not undocumented, undocumented


def test_a_long_quote_is_printed_cut_between_words_and_marked(capsys):
    from types import SimpleNamespace

    from sabio.cli.asking import QUOTE_WIDTH, _print_citations

    sentence = "Las bicicletas que no se recojan en 60 días después de avisar al cliente se consideran " * 3
    cited = SimpleNamespace(
        n=1,
        title="Garantía",
        section_title="Garantía",
        quote=sentence,
        page_start=None,
        slide_start=None,
        sheet=None,
        line_start=9,
        line_end=9,
    )
    _print_citations([cited])
    printed = capsys.readouterr().out.splitlines()[-1].strip().strip('"')
    assert printed.endswith(" …") and len(printed) <= QUOTE_WIDTH + 2
    assert sentence.startswith(printed[:-2])  # whole words, as quoted ("se donan", never "se don")
    assert printed[:-2].split()[-1] in sentence.split()


def test_the_insights_report_counts_in_words():
    from types import SimpleNamespace

    from sabio.cli.operating import render_insights

    topic = SimpleNamespace(
        count=1, langs={"es": 1}, unhelpful=0, examples=["¿Cuánto cuesta una endodoncia?"]
    )
    empty: list[object] = []
    report = SimpleNamespace(
        feedback={}, queries=1, weak=1, missing_topics=[topic], other_language=empty, translate=empty,
        most_cited=empty, never_retrieved=empty, failed_documents=empty, notes=empty,
    )  # fmt: skip
    text = render_insights(report, 1)
    assert text.startswith("# What Sabio was asked (1 day): 1 question, 1 not answered")
    assert "1. 1 question (es 1): ¿Cuánto cuesta una endodoncia?" in text
