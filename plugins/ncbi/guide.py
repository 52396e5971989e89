"""The NCBI plugin's section of the guide resource (``medlit://guide``, built by core from every
plugin's section): PubMed query syntax, identifiers and NCBI's limits, reference material that
would bloat every tool description. A line naming one of these tools is left out where the tool
is not served."""

from __future__ import annotations

GUIDE = """\
### PubMed query syntax
- Boolean operators in capitals: `asthma AND (child OR adolescent) NOT review[pt]`.
- Field tags: `[ti]` title, `[tiab]` title/abstract, `[au]` author (`smith j[au]`), `[1au]` first
  author, `[ta]` journal, `[mh]` MeSH heading (explodes to narrower terms), `[majr]` MeSH major
  topic, `[mh:noexp]` without explosion, `[pt]` publication type (`randomized controlled trial[pt]`),
  `[la]` language, `[dp]` / `[pdat]` publication date, `[aid]` article identifier (a DOI), `[pmid]`.
- Date ranges: `2020/01/01:2024/12/31[pdat]`. Phrases in double quotes: `"heart failure"[tiab]`.
- Truncation: `gene*` (at least four characters before the asterisk).
- Subsets: `free full text[sb]`, `hasabstract`, `humans[mh]`.
- An unknown tag or a phrase PubMed cannot find is reported in the search's `notice`.
- MeSH headings for a concept: `pubmed_lookup_mesh`; a misspelt query: `pubmed_spell_check`.

### Identifiers
- PMID: digits (`33533846`). PMCID: `PMC` + digits (`PMC9575052`). DOI: `10.` prefix, case-insensitive.
- `pubmed_convert_ids` uses the PMC ID Converter, which only knows articles in PMC: "not found"
  there means "no PMC copy", not "no such article". A DOI of any article: search it with `[aid]`.

### Other Entrez databases, links and History handles
- gene, protein, nuccore, snp, taxonomy, ...: `eutils_esearch` -> `eutils_esummary` / `eutils_efetch`;
  their field tags and link names: `eutils_einfo`, resource `pubmed://database/info`.
- Links between databases: `eutils_elink` with a link name (`pubmed_pubmed` similar,
  `pubmed_pubmed_citedin` citing, `pubmed_pubmed_refs` references, `pubmed_pmc` the PMC copy).
- History handles `{db, web_env, query_key, count}` from `eutils_esearch` / `eutils_epost` are
  accepted by esummary, efetch and elink: pass them back unchanged instead of the ids.

### Limits and paging
- NCBI allows 3 requests/s per IP (10 with `NCBI_API_KEY`); the server paces every call.
- PubMed result sets can be paged only through their first 10,000 records: narrow by date."""
