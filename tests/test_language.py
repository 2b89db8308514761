"""Language detection on short and long texts (the bundled fastText "lite" model, for real)."""

from __future__ import annotations

import pytest

from chalicelib.language_id import detect


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("¿Cuánto cuesta Faro?", "es"),
        ("Precios", "es"),  # fastText alone says Portuguese here
        ("Instalación", "es"),
        ("How much does it cost?", "en"),
        ("Getting started with the API", "en"),
        (
            "Faro se factura por agente y por mes. Todos los planes incluyen tickets ilimitados, correo y chat "
            "web, y los catorce primeros días son gratuitos con todas las funciones del plan Profesional.",
            "es",
        ),
        (
            "Marea is billed by the size of your contact list. Every plan includes the visual editor, segments "
            "and unlimited automated journeys, and nonprofits get a discount on any plan.",
            "en",
        ),
        (
            "Ceci est un document rédigé en français, avec plusieurs phrases complètes pour le détecteur.",
            "fr",
        ),
    ],
)
def test_detects_short_and_long_texts(text, lang):
    assert detect(text).lang == lang


def test_namespace_maps_unsupported_languages_to_other():
    found = detect("Ceci est un document rédigé en français, avec plusieurs phrases complètes.")
    assert found.namespace(("es", "en")) == "other"


def test_code_is_ignored_when_detecting():
    text = "```python\nimport requests\nresponse = requests.get(url)\n```\nEste ejemplo descarga la página."
    assert detect(text).lang == "es"
