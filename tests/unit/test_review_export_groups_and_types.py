"""Two export stumbles of issue 55: a group author with a comma in its name ("National Institute
for Health and Care Excellence, UK") was written to BibTeX as a person, so pybtex read it as a
family and given names; and a MEDLINE "Consensus Development Conference" (a journal article's
publication type) was exported as a conference paper."""

from __future__ import annotations

import io

import rispy
from pybtex.database import parse_string

from medlit.plugins.review import exports as X
from medlit.plugins.review.readers import read

GROUPS = [
    "WHO Collaborative Group",
    "National Institute for Health and Care Excellence, UK",
    "Writing Committee for the REMAP-CAP Investigators, the",
    "GBD 2019 Diseases and Injuries Collaborators",
    "Cochrane Airways Group",
    "RECOVERY Collaborative Group",
    "Task Force on Asthma, European Respiratory Society",
    "American Thoracic Society",
    "Global Initiative for Asthma",
    "Centers for Disease Control and Prevention, US",
    "PREDIMED Study Investigators",
    "International Consortium of Investigators, Europe",
    "Asthma UK Centre for Applied Research Team",
]


def test_every_group_author_is_one_braced_name_in_bibtex():
    rec = {"key": 1, "title": "A consensus", "authors": ["Smith, John", *GROUPS], "year": 2020}
    text = X.render("bibtex", [rec])
    people = next(iter(parse_string(text, "bibtex").entries.values())).persons["author"]
    assert len(people) == 1 + len(GROUPS)
    assert [str(p) for p in people[1:]] == [f"{{{g}}}" for g in GROUPS]
    assert [p.first_names for p in people[1:]] == [[]] * len(GROUPS)
    assert people[0].last_names == ["Smith"] and people[0].first_names == ["John"]


def test_a_consensus_development_conference_is_exported_as_a_journal_article():
    nbib = (
        "PMID- 1234567\nTI  - Asthma management: a consensus statement.\nAU  - Smith J\n"
        "PT  - Consensus Development Conference\nPT  - Journal Article\nDP  - 2019 Jan\n"
        "JT  - Thorax\n"
    )
    entry = read(nbib.encode()).entries[0]
    assert entry.data["kind"] == "article"
    out = rispy.load(io.StringIO(X.render("ris", [dict(entry.data, key=1)])))
    assert out[0]["type_of_reference"] == "JOUR"
