"""The bioRxiv/medRxiv parsers on the real recorded record (tests/fixtures/preprints/, origin in
its MANIFEST.tsv) and on answers built from it in the API's shape."""

from __future__ import annotations

import copy
import json

import pytest

from medlit.core.errors import MedlitError
from medlit.plugins.preprints.lookup_tool import servers_for
from medlit.plugins.preprints.parse import collection, preprint, publication

from support.fake_upstream import FIXTURES

RECORD = json.loads((FIXTURES / "preprints" / "details_record_10.1101_456574.json").read_text())


def test_the_real_record_as_a_preprint():
    p = preprint("10.1101/456574", "biorxiv", [RECORD], abstract=False)
    assert p.title == "Complementary subnetworks of cortical somatostatin interneurons"
    assert p.correspondingAuthor == "Hillel  Adesnik" and p.institution == "UC Berkeley"
    assert (
        p.latestVersion == 1 and p.versions[0].license == "cc_by_nc" and p.versions[0].type == "new results"
    )
    assert p.published is not None and p.published.doi == "10.7554/elife.43696" and p.published.date is None
    assert p.abstract is None and p.url == "https://www.biorxiv.org/content/10.1101/456574v1"


def test_versions_are_ordered_and_titles_kept_only_where_they_change():
    v2 = copy.deepcopy(RECORD) | {"version": "2", "date": "2019-01-02", "published": "NA"}
    v3 = copy.deepcopy(RECORD) | {"version": "3", "title": "Subnetworks, revised", "published": "NA"}
    v1 = copy.deepcopy(RECORD) | {"published": "NA"}
    p = preprint("10.1101/456574", "biorxiv", [v3, v1, v2], abstract=True)
    assert [v.version for v in p.versions] == [1, 2, 3] and p.latestVersion == 3
    assert [v.title is not None for v in p.versions] == [True, False, True]
    assert (
        p.title == "Subnetworks, revised" and p.published is None and p.abstract.startswith("The neocortex")
    )


def test_the_published_link_matches_the_preprints_journal_doi():
    pubs = [
        {"published_doi": "10.1000/other", "published_journal": "Other", "published_date": "2020-01-01"},
        {
            "published_doi": "10.7554/eLife.43696",
            "published_journal": "eLife",
            "published_date": "2019-03-07",
        },
    ]
    link = publication(pubs, "10.7554/elife.43696")
    assert (link.doi, link.journal, link.date) == ("10.7554/elife.43696", "eLife", "2019-03-07")
    assert publication([], "10.7554/elife.43696") is None


def test_no_posts_found_is_an_empty_collection_and_another_shape_the_apis_fault():
    assert collection({"messages": [{"status": "no posts found"}], "collection": []}) == []
    assert collection({"messages": [{"status": "ok"}], "collection": [RECORD]}) == [RECORD]
    with pytest.raises(MedlitError) as caught:
        collection({"collection": "none"})
    assert caught.value.reason == "biorxiv_invalid_response"


@pytest.mark.parametrize(
    ("doi", "asked", "order"),
    [
        ("10.1101/2020.03.09.20033357", "auto", ("medrxiv", "biorxiv")),
        ("10.1101/2020.12.31.422412", "auto", ("biorxiv", "medrxiv")),
        ("10.1101/456574", "auto", ("biorxiv", "medrxiv")),
        ("10.1101/2020.03.09.20033357", "biorxiv", ("biorxiv",)),
    ],
)
def test_the_server_is_guessed_from_the_doi(doi, asked, order):
    assert servers_for(doi, asked) == order
