"""Large imports are read a record at a time (issue 50): the tagged readers (RIS, MEDLINE) and the
table reader give their records lazily, the import's survey of a file holds no record, and a file
over the record cap is refused as soon as the cap is passed, the rest of the file not read."""

from __future__ import annotations

import importlib
import tracemalloc

import pytest

from medlit.core.plugin import bibliography
from medlit.plugins.review.readers import read
from medlit.plugins.review.readers.read import stream
from medlit.plugins.review.sources.filejob import TooManyRecords, survey

# the shared readers' modules (the package exports their writers under the same names)
core_ris = importlib.import_module("medlit.core.bibliography.ris")
core_medline = importlib.import_module("medlit.core.bibliography.medline")


def _ris(n: int) -> str:
    return "".join(
        f"TY  - JOUR\nTI  - A trial of drug {i} in stroke\nAU  - Smith, J\nAB  - {'Text of the study. ' * 10}\n"
        "PY  - 2001\nER  - \n\n"
        for i in range(n)
    )


def _medline(n: int) -> str:
    return "".join(
        f"PMID- {1000 + i}\nTI  - A trial of drug {i}\n      in stroke\nAB  - {'Text of the study. ' * 10}\n\n"
        for i in range(n)
    )


def _csv(n: int) -> str:
    return "Title,Year,Abstract\n" + "".join(
        f'"A trial of drug {i}",2001,"Text, of the study."\n' for i in range(n)
    )


class Counting:
    """The shared line splitter, counting the lines it has given."""

    def __init__(self, module, monkeypatch) -> None:
        self.given = 0
        real = module.lines

        def counted(text):
            for line in real(text):
                self.given += 1
                yield line

        monkeypatch.setattr(module, "lines", counted)


@pytest.mark.parametrize(
    ("module", "reader", "make"), [(core_ris, "ris", _ris), (core_medline, "medline", _medline)]
)
def test_the_tagged_readers_give_a_record_before_reading_the_rest(monkeypatch, module, reader, make):
    count = Counting(module, monkeypatch)
    text = make(1_000)
    records = getattr(bibliography.read, reader)(text)
    first = next(records)
    assert ("TI", "A trial of drug 0 in stroke") in first or ("TI", "A trial of drug 0") in first
    assert count.given <= 8  # the first record's lines (and the blank one ending it), not 6,000
    assert sum(1 for _ in records) == 999 and count.given >= 5_000


@pytest.mark.parametrize(("make", "fmt"), [(_ris, "ris"), (_medline, "medline"), (_csv, "csv")])
def test_the_review_readers_stream_records_in_file_order(make, fmt):
    raw = make(300).encode()
    s = stream(raw)
    assert s.format == fmt
    first = next(s.records)
    assert first.position == 1 and first.data["title"].startswith("A trial of drug 0")
    rest = list(s.records)
    assert [r.position for r in rest] == list(range(2, 301))
    # the whole read gives the same records
    whole = read(raw)
    assert [e.data for e in whole.entries] == [first.data] + [r.data for r in rest]


def test_the_record_cap_refuses_a_file_before_it_is_read_through(monkeypatch):
    count = Counting(core_ris, monkeypatch)
    raw = _ris(2_000).encode()
    with pytest.raises(TooManyRecords) as caught:
        survey(raw, "big.ris", None, 50, 10)
    assert caught.value.seen == 51
    assert count.given < 51 * 8  # 51 records' lines read, of 14,000
    # under the cap: every record counted
    assert survey(raw, "big.ris", None, 2_000, 10).records == 2_000


def test_a_survey_holds_no_record_only_the_file_s_text():
    # reading the file whole held its records (several times the text); the survey's memory is the
    # decoded text and one record, however many records the file holds
    raw = _ris(3_000).encode()
    tracemalloc.start()
    try:
        surveyed = survey(raw, None, None, None, 10)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert surveyed.entries == 3_000
    assert peak < len(raw) + 512 * 1024, (peak, len(raw))
