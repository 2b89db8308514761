"""Every setting is documented where a reader looks for it: docs/configuration.md, generated from the
``Settings`` fields' descriptions, is current."""

from __future__ import annotations

from chalicelib.config.section import nested, settings_of
from chalicelib.settings import Settings
from sabio import configuration_doc


def test_every_setting_says_what_it_does():
    top = ((name, f) for name, f in Settings.model_fields.items() if nested(f) is None)
    in_sections = (pair for _, section in Settings.sections() for pair in settings_of(section))
    undescribed = sorted(name for name, field in (*top, *in_sections) if not field.description)
    assert not undescribed, f"settings without a description: {undescribed}"


def test_the_configuration_page_is_current():
    page = configuration_doc.TARGET.read_text(encoding="utf-8")
    assert page == configuration_doc.render(), "stale: run python -m sabio.configuration_doc"
    for name in Settings().flat():
        assert f"`SABIO_{name.upper()}`" in page


def test_a_stale_page_is_reported(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "configuration.md"
    stale.write_text("# Configuration\n", encoding="utf-8")
    monkeypatch.setattr(configuration_doc, "TARGET", stale)
    assert configuration_doc.main(["--check"]) == 1
    assert "stale" in capsys.readouterr().err
    assert configuration_doc.main([]) == 0 and configuration_doc.main(["--check"]) == 0
