"""Apertium: rule-based machine translation that runs offline, from Debian's packages (``apertium-eng-spa``
gives Spanish <-> English). A question is a line or two, so each pair runs as one long-lived pipeline that
answers in 1-3 ms; starting the pipeline per question costs ~100 ms.

The pipeline is the pair's mode file in null-flush mode (``apertium-wblank-mode -z``): a NUL after a text
makes every stage emit what it holds. Each stage runs under ``stdbuf -i0 -o0``: lttoolbox 3.7's bilingual
lookup reads ahead and would otherwise wait for more input. The end of each answer is a superblank
``[sabio-N]`` sent after the text, which Apertium passes through untouched."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import select
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from chalicelib.registry import TRANSLATORS
from chalicelib.translators.names import pieces

if TYPE_CHECKING:
    from chalicelib.registry import Wiring

log = logging.getLogger(__name__)

MODES = Path("/usr/share/apertium/modes")
# (question language, documents' language) -> the Apertium mode that translates between them
PAIRS = {("es", "en"): "spa-eng", ("en", "es"): "eng-spa"}
TIMEOUT_S = 2.0
_SPECIAL = re.compile(r"([\[\]\\^$/@<>{}])")  # what apertium-destxt escapes
_ESCAPED = re.compile(r"\\(.)")
_KEPT = re.compile(r"(?<!\\)\[([^\]\\]*)\]")  # a word sent as a superblank, passed through as written
_TOOLS = ("apertium-wblank-mode", "stdbuf", "bash")


def escape(text: str, keep: Collection[str] = (), names: bool = True) -> str:
    """Plain text as Apertium's stream format reads it (one line: ``names.pieces``), its format characters
    escaped, names and identifiers sent as superblanks, which Apertium passes through as written (``names.pieces``)."""
    return "".join(f"[{p}]" if kept else _SPECIAL.sub(r"\\\1", p) for p, kept in pieces(text, keep, names))


def unescape(text: str) -> str:
    return _ESCAPED.sub(r"\1", _KEPT.sub(r"\1", text)).strip()


def pipeline_command(mode: Path) -> str:
    """The shell pipeline of a mode file, null-flushed, unknown words left unmarked, no stage buffered."""
    made = subprocess.run(
        ["apertium-wblank-mode", "-z", str(mode)], capture_output=True, text=True, check=True, timeout=10
    ).stdout.strip()
    # $1: the generator's option (-n: unknown words without '*'); $2: the tagger's extra option (none)
    stages = made.replace("$1", "-n").replace("$2", "").split(" | ")
    return " | ".join(f"stdbuf -i0 -o0 {stage.strip()}" for stage in stages)


class _Pipeline:
    """One running pipeline: a text in, its translation out, one at a time (the caller holds the lock)."""

    def __init__(self, command: str) -> None:
        self.process = subprocess.Popen(
            ["bash", "-c", command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # one process group: closing stops every stage, not only bash
        )
        self.asked = 0

    def ask(self, text: str, keep: Collection[str], timeout_s: float, names: bool = True) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.asked += 1
        mark = f"[sabio-{self.asked}]".encode()
        self.process.stdin.write(escape(text, keep, names).encode() + b" " + mark + b"\0")
        self.process.stdin.flush()
        fd = self.process.stdout.fileno()
        deadline = time.monotonic() + timeout_s
        out = b""
        while mark not in out:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError(f"no translation within {timeout_s} s")
            more = os.read(fd, 65536)
            if not more:
                raise EOFError("the Apertium pipeline exited")
            out += more
        # NULs: each stage's flush marker, some left over from the text before
        return unescape(out[: out.index(mark)].decode("utf-8", "replace").replace("\0", ""))

    def close(self) -> None:
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):  # a dead pipeline: what was left unflushed goes nowhere
                    stream.close()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


class ApertiumTranslator:
    """Translator (chalicelib.protocols) over the Apertium modes installed in ``modes``."""

    def __init__(self, modes: dict[tuple[str, str], Path], timeout_s: float = TIMEOUT_S) -> None:
        self.modes = modes
        self.timeout_s = timeout_s
        self._pipes: dict[tuple[str, str], _Pipeline] = {}
        self._locks = {pair: threading.Lock() for pair in modes}

    def pairs(self) -> list[tuple[str, str]]:
        return sorted(self.modes)

    def translate(
        self, text: str, source: str, target: str, keep: Collection[str] = (), *, names: bool = True
    ) -> str | None:
        pair = (source, target)
        if pair not in self.modes or not text.strip():
            return None
        with self._locks[pair]:
            try:
                pipe = self._pipes.get(pair)
                if pipe is None:
                    pipe = self._pipes[pair] = _Pipeline(pipeline_command(self.modes[pair]))
                return pipe.ask(text, keep, self.timeout_s, names) or None
            except (OSError, ValueError, TimeoutError, EOFError, subprocess.SubprocessError) as e:
                log.warning("Apertium %s->%s failed (%s): searched without a translation", source, target, e)
                broken = self._pipes.pop(pair, None)
                if broken is not None:
                    broken.close()  # the next question starts a fresh pipeline
                return None

    def close(self) -> None:
        for pair, pipe in list(self._pipes.items()):
            with self._locks[pair]:
                pipe.close()
                self._pipes.pop(pair, None)


def installed_modes(directory: Path = MODES) -> dict[tuple[str, str], Path]:
    """The pairs whose Apertium mode is installed here (none without Apertium's tools)."""
    if any(shutil.which(tool) is None for tool in _TOOLS):
        return {}
    return {
        pair: directory / f"{name}.mode"
        for pair, name in PAIRS.items()
        if (directory / f"{name}.mode").is_file()
    }


@TRANSLATORS.register("apertium")
def build(wiring: Wiring) -> ApertiumTranslator:
    """SABIO_TRANSLATOR=apertium: the installed pairs, or a clear error when none is."""
    modes = installed_modes()
    if not modes:
        raise ValueError(
            "SABIO_TRANSLATOR=apertium but Apertium's Spanish-English pair is not installed "
            "(Debian: apt-get install apertium-eng-spa)"
        )
    return ApertiumTranslator(modes)


@TRANSLATORS.register("auto")
def where_installed(wiring: Wiring) -> ApertiumTranslator | None:
    """SABIO_TRANSLATOR=auto (the default): Apertium where it is installed, else no translator."""
    modes = installed_modes()
    return ApertiumTranslator(modes) if modes else None
