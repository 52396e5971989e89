"""Access to the shared corpus of real upstream responses (never copied into the repo)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from support.corpus_use import note_use

DEFAULT_ROOT = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
T = TypeVar("T")


def corpus_root() -> Path | None:
    note_use()  # whatever the answer, the asking test depends on it (support.corpus_use)
    root = Path(os.environ.get("MEDLIT_CORPUS", DEFAULT_ROOT))
    return root if root.is_dir() else None


def corpus_cache(build: Callable[[], T]) -> Callable[[], T]:
    """``functools.cache`` for data built from the corpus: every call, not only the one that
    builds it, counts as the calling test's use of the corpus (support.corpus_use)."""
    cached = functools.cache(build)

    @functools.wraps(build)
    def read() -> T:
        note_use()
        return cached()

    return read


def corpus_path(rel: str) -> Path:
    """Path of a corpus file; skips the calling test with a clear reason when it is absent."""
    root = corpus_root()
    if root is None:
        pytest.skip("shared corpus not found (set MEDLIT_CORPUS or place it at ../shared/corpus)")
    path = root / rel
    if not path.exists():
        pytest.skip(f"corpus file {rel} not present in {root}")
    return path


def corpus_bytes(rel: str) -> bytes:
    return corpus_path(rel).read_bytes()


def corpus_glob(pattern: str) -> list[Path]:
    root = corpus_root()
    if root is None:
        return []
    return sorted(root.glob(pattern))


def export_counts() -> dict[str, int]:
    """Each export file of the corpus (path under ``exports/``) and the record count its MANIFEST
    row states; empty when the corpus is absent."""
    import re

    root = corpus_root()
    if root is None:
        return {}
    counts: dict[str, int] = {}
    for line in (root / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines():
        cells = line.split("\t")
        if cells[0].startswith("exports/"):
            match = re.search(r"(\d+) records", cells[4])
            assert match is not None, line
            counts[cells[0].removeprefix("exports/")] = int(match.group(1))
    return counts
