"""Importing by ``path`` is refused until MEDLIT_IMPORT_DIRS names the folder (issue 55): the
README's first steps and review_import's own ``path`` field say so, so a newcomer is not met by a
refusal neither of them mentioned."""

from __future__ import annotations

from pathlib import Path

from medlit.plugins.review.models import ImportInput

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_says_a_path_needs_medlit_import_dirs():
    text = README.read_text(encoding="utf-8")
    first_steps = text[: text.index("## Try it offline")]
    assert "MEDLIT_IMPORT_DIRS" in first_steps and "`path`" in first_steps


def test_review_imports_path_field_names_medlit_import_dirs():
    description = ImportInput.model_json_schema()["properties"]["path"]["description"]
    assert "MEDLIT_IMPORT_DIRS" in description and "content" in description
