"""The NCBI tools' declarations; the code lives one module per family, named by lazy references
and imported at a tool's first call. Tool modules never import each other: what two of them share
lives a floor down (``client``, ``parse``, ``inputs``, ``render``, ``citation_styles``)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from medlit.core.plugin import ToolSpec, lazy_module

if TYPE_CHECKING:  # mypy checks each declaration below against the real module
    from . import citations as _citations
    from . import convert as _convert
    from . import einfo as _einfo
    from . import eutils_fetch as _eutils_fetch
    from . import eutils_link as _eutils_link
    from . import eutils_search as _eutils_search
    from . import mesh as _mesh
    from . import pubmed_fetch as _pubmed_fetch
    from . import pubmed_search as _pubmed_search
    from . import spell as _spell
else:  # run time: each attribute is a lazy reference, imported at its first use
    _citations = lazy_module(".citations", __name__)
    _convert = lazy_module(".convert", __name__)
    _einfo = lazy_module(".einfo", __name__)
    _eutils_fetch = lazy_module(".eutils_fetch", __name__)
    _eutils_link = lazy_module(".eutils_link", __name__)
    _eutils_search = lazy_module(".eutils_search", __name__)
    _mesh = lazy_module(".mesh", __name__)
    _pubmed_fetch = lazy_module(".pubmed_fetch", __name__)
    _pubmed_search = lazy_module(".pubmed_search", __name__)
    _spell = lazy_module(".spell", __name__)

_DECLARED = (
    # einfo.py
    ToolSpec(
        name="eutils_einfo",
        title="Describe Entrez databases (EInfo)",
        description=(
            "List the Entrez databases, or describe one: record count, last update, its search field tags (for "
            "eutils_esearch terms) and link names (for eutils_elink). Use it before building a fielded query or "
            "choosing a linkname; not to search (eutils_esearch, pubmed_search_articles) or to count a query per "
            "database (eutils_egquery). An unknown database is refused with the valid names."
        ),
        input_model=_einfo.EInfoInput,
        output_model=_einfo.EInfoOutput,
        handler=_einfo.einfo,
        render=_einfo.render_einfo,
        guide="the field tags or link names of an Entrez database",
    ),
    # eutils_search.py
    ToolSpec(
        name="eutils_esearch",
        title="Search an Entrez database (ESearch)",
        description=(
            "Search any Entrez database (gene, protein, snp, pmc, ...) for UIDs, with the total, "
            "Entrez's query translation and a History handle. For PubMed literature use pubmed_search_articles "
            "(filters, summaries); the records in the same call, eutils_search_then_fetch; unsure which database, "
            "eutils_egquery. Page with retstart = next_offset; PubMed and PMC sets stop at 10,000 records: split by "
            "date (mindate/maxdate or reldate). No match is an empty result with a spelling suggestion."
        ),
        input_model=_eutils_search.ESearchInput,
        output_model=_eutils_search.ESearchOutput,
        handler=_eutils_search.esearch_tool,
        render=_eutils_search.render_esearch,
        idempotent=False,
        guide="a query for any Entrez database (gene, protein, snp, ...), want UIDs and a History handle",
    ),
    ToolSpec(
        name="eutils_epost",
        title="Store UIDs on the History server (EPost)",
        description=(
            "Store a UID list on the NCBI History server and get a handle that eutils_esummary, eutils_efetch and "
            "eutils_elink accept instead of the ids. Use it for long lists from elsewhere (a bibliography, another "
            "tool) before paging through them; not after eutils_esearch, which already returns a handle. One request "
            "for up to 10,000 UIDs; each call creates a new handle."
        ),
        input_model=_eutils_search.EPostInput,
        output_model=_eutils_search.EPostOutput,
        handler=_eutils_search.epost_tool,
        render=_eutils_search.render_epost,
        idempotent=False,
        guide="a long UID list, to store on the History server",
    ),
    ToolSpec(
        name="eutils_espell",
        title="Spelling suggestion for a query (ESpell)",
        description=(
            "Get NCBI ESpell's raw correction of a query in any Entrez database's vocabulary ('breast cancr' -> "
            "'breast cancer'). For PubMed queries use pubmed_spell_check, which corrects only free-text words and "
            "keeps field values and gene symbols. eutils_esearch already adds this suggestion to empty results. "
            "changed=false means no suggestion."
        ),
        input_model=_eutils_search.ESpellInput,
        output_model=_eutils_search.ESpellOutput,
        handler=_eutils_search.espell_tool,
        render=_eutils_search.render_espell,
        guide="a misspelt term for any Entrez database",
    ),
    ToolSpec(
        name="eutils_egquery",
        title="Count a query across Entrez databases (EGQuery)",
        description=(
            "Count a query's matches in every Entrez database, to find where data on a topic lives. Counts only; "
            "when you know the database use eutils_esearch (retmax=0). When EGQuery itself is unreachable, counts "
            # 12 = len(eutils_search.FALLBACK_DATABASES) (tests/unit/test_ncbi_lazy_imports.py checks it)
            "come from one ESearch in each of 12 common databases and the result says "
            "degraded=true with degraded_reason; an error about the query itself is returned as an error."
        ),
        input_model=_eutils_search.EGQueryInput,
        output_model=_eutils_search.EGQueryOutput,
        handler=_eutils_search.egquery_tool,
        render=_eutils_search.render_egquery,
        guide="a query, want its match count in every Entrez database",
    ),
    ToolSpec(
        name="eutils_ecitmatch",
        capabilities=frozenset({"citation_strings"}),
        title="Match citations to PMIDs (ECitMatch)",
        description=(
            "Match citations written in ECitMatch's pipe format to PMIDs: each comes back matched, not_found or "
            "ambiguous (with candidate PMIDs). Use it when you already have such strings; for references as fields, "
            "with each match checked, use pubmed_lookup_citation; to audit a reference list (errors, retractions), "
            "pubmed_verify_references; for topic searches, eutils_esearch. Up to 200 strings, one request."
        ),
        input_model=_eutils_search.ECitMatchInput,
        output_model=_eutils_search.ECitMatchOutput,
        handler=_eutils_search.ecitmatch_tool,
        render=_eutils_search.render_ecitmatch,
        guide="citation strings (journal|year|volume|page|author|key|), want PMIDs",
    ),
    # eutils_fetch.py
    ToolSpec(
        name="eutils_esummary",
        title="Document summaries for UIDs (ESummary)",
        description=(
            "Get document summaries (DocSums) for UIDs or a History handle in any Entrez database; for PubMed: title, "
            "authors, journal, date, DOI, PMCID. Use it to screen records cheaply; for abstracts, sequences or full "
            "records use eutils_efetch, for parsed PubMed records pubmed_fetch_articles. Give exactly one of uids (up to 10,000) or "
            "history (page it with retstart/retmax). Ids NCBI cannot summarise are listed in errors; the rest still "
            "come back."
        ),
        input_model=_eutils_fetch.ESummaryInput,
        output_model=_eutils_fetch.ESummaryOutput,
        handler=_eutils_fetch.esummary_tool,
        render=_eutils_fetch.render_esummary,
        guide="UIDs of any Entrez database, want document summaries",
    ),
    ToolSpec(
        name="eutils_efetch",
        title="Download full records (EFetch)",
        description=(
            "Download records for UIDs (up to 500) or a History handle, exactly one, from any Entrez database: PubMed abstract, "
            "MEDLINE or XML, FASTA or GenBank (seq_start/seq_stop/strand cut a region), raw PMC JATS. Parsed PubMed "
            "records: pubmed_fetch_articles; readable full text: pubmed_fetch_fulltext; titles and dates, "
            "eutils_esummary; to search, eutils_search_then_fetch. Page a history with retstart/retmax. "
            "Non-sequence databases other than pubmed need rettype or retmode='xml'."
        ),
        input_model=_eutils_fetch.EFetchInput,
        output_model=_eutils_fetch.EFetchOutput,
        handler=_eutils_fetch.efetch_tool,
        render=_eutils_fetch.render_efetch,
        guide="UIDs of any Entrez database, want records (XML, FASTA, GenBank, MEDLINE)",
    ),
    ToolSpec(
        name="eutils_search_then_fetch",
        title="Search and download records in one call",
        description=(
            "Search any Entrez database and download one page of the matching records in the same call (ESearch then "
            "EFetch), e.g. FASTA of matching proteins; takes eutils_esearch's query fields and eutils_efetch's "
            "rettype/retmode. For PubMed, pubmed_search_articles then pubmed_fetch_articles give parsed records; to "
            "screen titles first, eutils_esearch then eutils_esummary. Page with retstart or the History handle. No "
            "match is an empty result."
        ),
        input_model=_eutils_fetch.SearchThenFetchInput,
        output_model=_eutils_fetch.SearchThenFetchOutput,
        handler=_eutils_fetch.search_then_fetch_tool,
        render=_eutils_fetch.render_search_then_fetch,
        idempotent=False,
        guide="a query for any Entrez database, want the matching records in one call",
    ),
    # eutils_link.py
    ToolSpec(
        name="eutils_elink",
        capabilities=frozenset({"links"}),
        title="Follow links between Entrez records (ELink)",
        description=(
            "Follow links from UIDs or a History handle in any Entrez database: to another database (gene -> protein, "
            "pubmed -> pmc) or within one (pubmed_pubmed similar, pubmed_pubmed_citedin, pubmed_pubmed_refs). For a "
            "PubMed article's similar, citing or cited articles with summaries use pubmed_find_related; the linked "
            "records themselves, eutils_link_then_fetch; PMID <-> PMC ID <-> DOI, pubmed_convert_ids. Give one of "
            "uids (up to 2,000) or history. No links is an empty result with a hint."
        ),
        input_model=_eutils_link.ELinkInput,
        output_model=_eutils_link.ELinkOutput,
        handler=_eutils_link.elink_tool,
        render=_eutils_link.render_elink,
        idempotent=False,
        guide="UIDs, want the linked UIDs of another Entrez database (pubmed -> gene, protein -> nuccore)",
    ),
    ToolSpec(
        name="eutils_link_then_fetch",
        capabilities=frozenset({"links"}),
        title="Follow links and download the linked records",
        description=(
            "Follow links from source records to another Entrez database and download the linked records in one call "
            "(gene -> protein FASTA, pubmed -> raw PMC JATS; readable full text: pubmed_fetch_fulltext). When the "
            "linked UIDs are enough use eutils_elink (cheaper); a PubMed article's citing or similar articles, "
            "pubmed_find_related. Select sources with one of term, uids or history. Follows linkname, else "
            "'<dbfrom>_<db>'. Returns a History handle to page the linked set with eutils_efetch."
        ),
        input_model=_eutils_link.LinkThenFetchInput,
        output_model=_eutils_link.LinkThenFetchOutput,
        handler=_eutils_link.link_then_fetch_tool,
        render=_eutils_link.render_link_then_fetch,
        idempotent=False,
        guide="UIDs, want the linked records of another Entrez database in one call",
    ),
    # pubmed_search.py
    ToolSpec(
        name="pubmed_search_articles",
        capabilities=frozenset({"search"}),
        title="Search PubMed",
        description=(
            "Search PubMed with its query syntax ([tiab], [mh], [au], [dp], AND/OR/NOT) plus AND-ed filters: "
            "PMIDs, total, summaries. No match is an empty result, not an error; at most 9,999 records: split by "
            "dateRange. Other families (medlit_toolsets): review: database imports, whole searches "
            "(review_search), screening, PRISMA; eutils: all NCBI databases (eutils_esearch, "
            "eutils_search_then_fetch); europepmc: preprints, patents (pubmed_europepmc_search); pubtator: genes, "
            "chemicals; trials: registers."
        ),
        input_model=_pubmed_search.SearchArticlesInput,
        output_model=_pubmed_search.SearchArticlesOutput,
        handler=_pubmed_search.search_articles,
        render=_pubmed_search.render_search,
        guide="a topic, want PMIDs (+ brief summaries)",
    ),
    # pubmed_fetch.py
    ToolSpec(
        name="pubmed_fetch_articles",
        capabilities=frozenset({"records"}),
        title="Fetch PubMed records",
        description=(
            "Fetch complete PubMed records by PMID, parsed (abstract, authors, MeSH, notices such as retractions; "
            "Bookshelf books and chapters too). For full text, pubmed_fetch_fulltext; references, "
            "pubmed_format_citations; other databases or raw MEDLINE/XML, eutils_efetch or eutils_esummary (eutils "
            "family, via medlit_toolsets). Up to 200 PMIDs, one request; unknown ones are listed in unavailablePmids; "
            "past maxResponseCharacters, call again with deferred."
        ),
        input_model=_pubmed_fetch.FetchArticlesInput,
        output_model=_pubmed_fetch.FetchArticlesOutput,
        handler=_pubmed_fetch.fetch_articles,
        render=_pubmed_fetch.render_fetch,
        guide="PMIDs, want abstracts, authors, MeSH, retraction notices",
    ),
    # spell.py
    ToolSpec(
        name="pubmed_spell_check",
        title="Spell-check a PubMed query",
        description=(
            "Spell-check a PubMed query with NCBI ESpell for a corrected query to re-run. Use it after a thin "
            "pubmed_search_articles result or when a name may be misspelled; not to map to MeSH (pubmed_lookup_mesh). "
            "Other Entrez databases, or ESpell's unfiltered answer: eutils_espell (eutils family, via medlit_toolsets). Only free-text words change: field "
            "tags, operators, indexed values (aged[mh]), all-capital gene symbols and words with digits stay. "
            "hasSuggestion=false means nothing changed."
        ),
        input_model=_spell.SpellCheckInput,
        output_model=_spell.SpellCheckOutput,
        handler=_spell.spell_check,
        render=_spell.render_spell,
        guide="a misspelt PubMed query",
        capabilities=frozenset({"vocabulary"}),
    ),
    # mesh.py
    ToolSpec(
        name="pubmed_lookup_mesh",
        title="Look up MeSH headings",
        description=(
            "Look up MeSH headings for a term, with MeSH UI, tree numbers, scope note and entry terms; the heading "
            "named exactly like the query comes first (isExactMatch). Use it to pick exact headings for "
            'pubmed_search_articles meshTerms or "term"[mh] queries; not to search articles (pubmed_search_articles). '
            "Page with offset = nextOffset (absent on the last page). No match is an empty list with a notice."
        ),
        input_model=_mesh.LookupMeshInput,
        output_model=_mesh.LookupMeshOutput,
        handler=_mesh.lookup_mesh,
        render=_mesh.render_mesh,
        guide="a concept, want its MeSH heading",
        capabilities=frozenset({"vocabulary"}),
    ),
    # convert.py
    ToolSpec(
        name="pubmed_convert_ids",
        capabilities=frozenset({"id_conversion"}),
        title="Convert DOI / PMID / PMC ID",
        description=(
            "Convert article ids between DOI, PMID and PMC ID with the PMC ID Converter, which knows only articles in "
            "PubMed Central. Use it to get a PMC ID or the PMID of a PMC article's DOI; for an article outside PMC "
            "search pubmed_search_articles for '10.x/y[doi]'; for links to gene or protein records, "
            "eutils_elink (eutils family, via medlit_toolsets). pubmed_fetch_fulltext resolves ids itself. Up to 200 ids; "
            "an id not converted (not in PMC) carries its own errmsg; embargoed articles carry releaseDate."
        ),
        input_model=_convert.ConvertIdsInput,
        output_model=_convert.ConvertIdsOutput,
        handler=_convert.convert,
        render=_convert.render_convert,
        guide="PMIDs <-> PMCIDs <-> DOIs of articles in PMC",
    ),
    # citations.py
    ToolSpec(
        name="pubmed_lookup_citation",
        capabilities=frozenset({"citation_match"}),
        title="Find PMIDs for structured references",
        description=(
            "Find the PMIDs of references given as fields (journal, year, volume, first page, author) with NCBI "
            "ECitMatch, each match checked against its PubMed summary (warnings flag disagreements). Use it to find PMIDs; to audit a reference list (errors, retractions), "
            "pubmed_verify_references. With only a title, a topic or a DOI use pubmed_search_articles "
            "(a DOI as '10.x/y[doi]'); with pipe-formatted strings, eutils_ecitmatch (eutils family, via medlit_toolsets). "
            "Each citation needs journal or year."
        ),
        input_model=_citations.LookupCitationInput,
        output_model=_citations.LookupCitationOutput,
        handler=_citations.lookup_citation,
        render=_citations.render_lookup,
        guide="a reference (journal, year, volume, page, author), want its PMID",
    ),
    ToolSpec(
        name="pubmed_format_citations",
        capabilities=frozenset({"citations"}),
        title="Format PubMed references",
        description=(
            "Format PubMed records as references in APA 7, MLA 9, Vancouver (NLM), BibTeX or RIS, one or several "
            "styles per call; retraction and erratum notices come back in notices. Use "
            "it once you have PMIDs (pubmed_search_articles); for the records, pubmed_fetch_articles; a whole review "
            "set to a file: review_export (review family, via medlit_toolsets). Up to 50 PMIDs; unknown ones are listed in "
            "unavailablePmids. Plain text, no italics."
        ),
        input_model=_citations.FormatCitationsInput,
        output_model=_citations.FormatCitationsOutput,
        handler=_citations.format_citations,
        render=_citations.render_format,
        guide="PMIDs, want formatted references (APA, MLA, Vancouver, ...)",
    ),
)
# Two families (PluginInfo.toolsets): the PubMed research tools, listed up front, and the raw
# E-utilities, listed on demand; the name's prefix says which.
TOOLS = tuple(replace(t, toolset="eutils" if t.name.startswith("eutils_") else "pubmed") for t in _DECLARED)
