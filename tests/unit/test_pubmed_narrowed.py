"""PubMed records are frozen and shared (issue 25): a record read with more options (investigators,
grants) answers a read with fewer exactly as that read would have made it, and a parsed tree
gives the same records as the body it came from."""

from __future__ import annotations

import itertools

import pytest

from medlit.core.xml import parse_xml
from medlit.plugins.ncbi.parse.pubmed import parse_pubmed_xml
from medlit.plugins.ncbi.parse.pubmed_records import PubMedArticle

from support.corpus import corpus_glob

EFETCH = "ncbi/efetch_pubmed/"
VARIANTS = list(itertools.product((False, True), repeat=2))  # (investigators, grants)

_INVESTIGATORS_WITH_OWN_AFFILIATIONS = b"""<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID>
<Article><ArticleTitle>T</ArticleTitle><AuthorList><Author><LastName>A</LastName>
<AffiliationInfo><Affiliation>Shared</Affiliation></AffiliationInfo></Author>
<Author><AffiliationInfo><Affiliation>Of a nameless stub</Affiliation></AffiliationInfo></Author></AuthorList>
<GrantList><Grant><GrantID>G1</GrantID></Grant></GrantList></Article>
<InvestigatorList><Investigator><LastName>I</LastName>
<AffiliationInfo><Affiliation>Shared</Affiliation></AffiliationInfo>
<AffiliationInfo><Affiliation>Investigator only</Affiliation></AffiliationInfo></Investigator></InvestigatorList>
</MedlineCitation></PubmedArticle></PubmedArticleSet>"""


def _reads(data: bytes) -> dict[tuple[bool, bool], list[PubMedArticle]]:
    return {
        (inv, gr): parse_pubmed_xml(data, include_investigators=inv, include_grants=gr)
        for inv, gr in VARIANTS
    }


def _check_narrowing(data: bytes) -> None:
    reads = _reads(data)
    for (inv, gr), wanted in reads.items():
        for (more_inv, more_gr), richer in reads.items():
            if more_inv >= inv and more_gr >= gr:
                got = [r.narrowed(inv, gr).model_dump() for r in richer]
                assert got == [r.model_dump() for r in wanted], ((more_inv, more_gr), (inv, gr))


@pytest.mark.parametrize("path", corpus_glob(EFETCH + "*.xml"), ids=lambda p: p.name)
def test_a_richer_read_narrows_to_the_plain_one(path) -> None:
    _check_narrowing(path.read_bytes())


def test_narrowing_drops_the_investigators_own_affiliations_only() -> None:
    _check_narrowing(_INVESTIGATORS_WITH_OWN_AFFILIATIONS)
    [full] = parse_pubmed_xml(
        _INVESTIGATORS_WITH_OWN_AFFILIATIONS, include_investigators=True, include_grants=True
    )
    assert full.affiliations == ["Shared", "Of a nameless stub", "Investigator only"]
    plain = full.narrowed(False, False)
    assert (plain.affiliations, plain.investigators, plain.grants) == (
        ["Shared", "Of a nameless stub"],
        [],
        None,
    )
    assert plain.authors is full.authors  # shared, not copied
    assert full.narrowed(True, True) is full


@pytest.mark.parametrize("path", corpus_glob(EFETCH + "*.xml"), ids=lambda p: p.name)
def test_a_parsed_tree_reads_as_its_body(path) -> None:
    data = path.read_bytes()
    from_tree = parse_pubmed_xml(parse_xml(data), include_investigators=True, include_grants=True)
    from_body = parse_pubmed_xml(data, include_investigators=True, include_grants=True)
    assert [r.model_dump() for r in from_tree] == [r.model_dump() for r in from_body]


def test_records_are_frozen() -> None:
    [a] = parse_pubmed_xml(_INVESTIGATORS_WITH_OWN_AFFILIATIONS, include_grants=True)
    with pytest.raises(ValueError, match="frozen"):
        a.title = "x"
    with pytest.raises(ValueError, match="frozen"):
        a.authors[0].lastName = "x"
