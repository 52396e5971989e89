"""`medlit call review_prisma '{"format": "png"}'` printed "The diagram follows as an image." and
wrote nothing (issue 55): a terminal shows no image content, so the CLI writes each image a result
carries to a file (``--out``, default the current directory) and says where."""

from __future__ import annotations

import json

from medlit.core.cli import main

RIS = "TY  - JOUR\nTI  - Inhaled budesonide in preschool wheeze\nAU  - Müller, Jana\nPY  - 2021\nER  - \n"


def test_a_png_result_is_written_to_a_file_and_its_path_printed(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MEDLIT_STORE", f"sqlite:///{tmp_path / 'review.sqlite3'}")
    monkeypatch.setenv("MEDLIT_EXPORT_DIR", str(tmp_path / "exports"))
    monkeypatch.setenv("MEDLIT_CACHE", "off")
    args = {"set": "wheeze", "database": "Embase", "content": RIS}
    assert main(["call", "review_import", json.dumps(args)]) == 0
    capsys.readouterr()
    out_dir = tmp_path / "out"
    code = main(["call", "review_prisma", '{"set": "wheeze", "format": "png"}', "--out", str(out_dir)])
    printed = capsys.readouterr().out
    png = out_dir / "review_prisma.png"
    assert code == 0
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert f"Image written to {png}" in printed


def test_a_failed_call_exits_non_zero(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MEDLIT_STORE", f"sqlite:///{tmp_path / 'review.sqlite3'}")
    monkeypatch.setenv("MEDLIT_CACHE", "off")
    assert (
        main(["call", "review_prisma", '{"set": "no-such-set", "format": "png"}', "--out", str(tmp_path)])
        == 1
    )
    assert not list(tmp_path.glob("*.png"))
