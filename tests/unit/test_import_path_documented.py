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


def test_the_instructions_say_whether_this_server_allows_a_folder(tmp_path):
    # a model cannot read the server's environment: the instructions say whether `path` can work
    # here, and never which folder (a server path)
    from medlit.core.server import instructions
    from medlit.testing import host_for

    closed = instructions(host_for(env={}))
    assert "`path` is off on this server" in closed and "MEDLIT_IMPORT_DIRS" in closed
    opened = instructions(host_for(env={"MEDLIT_IMPORT_DIRS": str(tmp_path)}))
    assert "`path` reads a file in the folders this server allows" in opened
    assert "is off" not in opened and str(tmp_path) not in opened
