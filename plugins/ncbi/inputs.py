"""Input pieces the NCBI tools share: database names, UID lists, History handles, dates, record
formats, the E-utilities search form, PMID lists and the checks that keep blank queries out.

Everything here runs inside pydantic validation, so a bad argument becomes ``invalid_argument``
(with its own ``reason`` and a recovery hint) before any request reaches NCBI.
"""

from __future__ import annotations

import html
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from medlit.core.plugin import ArgumentError, ToolInput, identifiers, outputs, rendering

DB_NAME = re.compile(r"^[a-z][a-z0-9_]{1,39}$")
DB_LENGTH = 40
UID_LENGTH = 64  # a UID or accession.version, as _UID allows
PMID_LENGTH = 100  # one PMID as sent: digits, 'PMID: 123' or a PubMed URL
# retstart / seq_start bound: PubMed and PMC stop at PAGING_CEILING (checked with its own hint);
# other databases page further, but never past a billion records.
INDEX_MAX = 10**9


def check_db(value: str) -> str:
    v = value.strip().lower()
    if not DB_NAME.match(v):
        raise ArgumentError(
            f"{value!r} is not an Entrez database name",
            "Use a database name such as 'pubmed', 'pmc', 'gene' or 'protein'; eutils_einfo with no db lists them.",
        )
    return v


# Sequence databases whose records default to FASTA; PubMed defaults to abstract text.
SEQUENCE_DBS = frozenset({"protein", "nuccore", "nucleotide", "nucest", "nucgss", "popset", "ipg"})
# Databases whose UIDs are integers: leading zeros and "PMID:"/"PMC" prefixes are folded away.
NUMERIC_UID_DBS = frozenset({"pubmed", "pmc", "gene", "taxonomy", "mesh", "books", "medgen", "clinvar"})
# Only the first 10,000 records of a PubMed or PMC result set can be reached by paging.
PAGING_CEILING = 10_000
PAGING_CEILING_DBS = frozenset({"pubmed", "pmc"})


def pageable(db: str, total: int) -> int:
    """How many of a result set's ``total`` records paging can reach in ``db``."""
    return min(total, PAGING_CEILING) if db in PAGING_CEILING_DBS else total


def check_paging_ceiling(db: str | None, retstart: int, recovery: str) -> None:
    if db in PAGING_CEILING_DBS and retstart >= PAGING_CEILING:
        raise ArgumentError(
            f"retstart={retstart:,} is past the {PAGING_CEILING:,}-record ceiling of {db} result sets",
            recovery,
        )


_UID = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
_URL_META = re.compile(r"[&=?#%/+;:<>\"'\\\s\[\](){}|]")
_PREFIX = re.compile(r"^(?:pmid|pubmed)\s*:?\s*", re.IGNORECASE)
_WEB_ENV = re.compile(r"^[A-Za-z0-9_.@\-]{1,300}$")
_DATE = re.compile(r"^(\d{4})(?:[/\-.](\d{1,2})(?:[/\-.](\d{1,2}))?)?$")
_SORT = re.compile(r"^[A-Za-z][A-Za-z_+ .]{0,39}$")
_RETTYPE = re.compile(r"^[A-Za-z][A-Za-z0-9_.\-]{0,29}$")
_LINKNAME = re.compile(r"^[a-z][a-z0-9_]{1,79}$")

UIDS_RECOVERY = (
    "Give UIDs as an array (['31452104', '31452105']); each is digits or an accession such as 'NP_005537.3'."
)


class HistoryHandle(BaseModel):
    # A result set stored on the NCBI History server, passed back unchanged. No docstring and no
    # field descriptions: every tool taking one describes it (with an example) where it is used,
    # and this definition is repeated in four tool schemas.
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    db: str = Field(max_length=DB_LENGTH)
    web_env: str = Field(max_length=300)
    query_key: str = Field(max_length=12)
    count: int | None = Field(None, ge=0, le=10**10)

    @field_validator("db")
    @classmethod
    def _db(cls, v: str) -> str:
        return check_db(v)

    @field_validator("web_env")
    @classmethod
    def _web_env(cls, v: str) -> str:
        if not _WEB_ENV.match(v):
            raise ArgumentError(
                "history.web_env is not a History server session string",
                "Pass back the history object a previous eutils_* call returned, unchanged.",
            )
        return v

    @field_validator("query_key", mode="before")
    @classmethod
    def _query_key(cls, v: Any) -> str:
        s = str(v).strip() if isinstance(v, (str, int)) and not isinstance(v, bool) else ""
        if not s.isdigit():
            raise ArgumentError(
                f"history.query_key must be a number such as '1', not {v!r}",
                "Pass back the history object a previous eutils_* call returned, unchanged.",
            )
        return s


HISTORY_DESCRIPTION = (
    "A History handle from eutils_esearch/epost/elink, unchanged. Example: "
    "{'db': 'pubmed', 'web_env': 'MCID_01', 'query_key': '1'}."
)


def _split_uids(value: Any) -> list[str]:
    if isinstance(value, (int, str)) and not isinstance(value, bool):
        items: list[Any] = re.split(r"[,\s]+", str(value).strip())
    elif isinstance(value, (list, tuple)):
        items = []
        for v in value:
            if isinstance(v, bool) or not isinstance(v, (int, str)):
                raise ArgumentError(f"uids must hold strings or numbers, not {v!r}", UIDS_RECOVERY)
            items.extend(re.split(r",\s*", str(v).strip()) if "," in str(v) else [str(v).strip()])
    else:
        raise ArgumentError(
            f"uids must be an array or a comma-separated string, not {value!r}", UIDS_RECOVERY
        )
    out: list[str] = []
    for raw in items:
        uid = _PREFIX.sub("", raw.strip())
        if not uid:
            continue
        if _URL_META.search(uid) or not _UID.match(uid):
            raise ArgumentError(
                f"UID {raw!r} contains characters that are not allowed (URL metacharacters, spaces or "
                "brackets)",
                UIDS_RECOVERY,
            )
        if uid.isdigit():
            uid = uid.lstrip("0") or "0"
        if uid not in out:
            out.append(uid)
    if not out:
        raise ArgumentError("uids is empty", UIDS_RECOVERY)
    return out


Uids = Annotated[list[Annotated[str, Field(max_length=UID_LENGTH)]], BeforeValidator(_split_uids)]


def uids_field(limit: int, what: str = "UIDs") -> Any:
    """An optional UID list; ``limit`` is advertised here and enforced by ``check_uid_count`` (with a
    hint on how to get more)."""
    return Field(
        None,
        description=f"{what}, numbers accepted. Example: ['31452104', '31452105'].",
        json_schema_extra={"maxItems": limit},
    )


def retmax_cap(limit: int, hint: str) -> Any:
    """A before-validator for retmax: over ``limit`` is refused with ``hint`` (how to get more)."""

    def check(cls: Any, v: Any) -> Any:
        n = int(v) if isinstance(v, str) and v.strip().isdigit() else v
        if isinstance(n, int) and not isinstance(n, bool) and n > limit:
            raise ArgumentError(f"retmax={n:,} is over the {limit:,} allowed per call", hint)
        return v

    return field_validator("retmax", mode="before")(check)


def check_uid_count(uids: list[str] | None, limit: int, hint: str) -> None:
    if uids is not None and len(uids) > limit:
        raise ArgumentError(f"{len(uids):,} UIDs given; at most {limit:,} per call", hint)


def fold_pmc_uids(db: str | None, uids: list[str] | None) -> list[str] | None:
    """db=pmc takes numeric UIDs: 'PMC9575052' means 9575052."""
    if uids is None or db not in NUMERIC_UID_DBS:
        return uids
    out: list[str] = []
    for u in uids:
        if db == "pmc" and re.fullmatch(r"(?i)pmc\d+", u):
            u = u[3:].lstrip("0") or "0"
        if not u.isdigit():
            raise ArgumentError(
                f"{u!r} is not a {db} UID (those are numbers)",
                f"Give numeric {db} UIDs, e.g. '31452104'"
                + ("; PMCIDs like 'PMC9575052' are accepted for db=pmc." if db == "pmc" else "."),
            )
        if u not in out:
            out.append(u)
    return out


def resolve_source(
    db: str | None, uids: list[str] | None, history: HistoryHandle | None, db_name: str = "db"
) -> str:
    """Exactly one of uids/history; the database comes from db or the handle, and they must agree."""
    if (uids is None) == (history is None):
        raise ArgumentError(
            "give exactly one of uids or history" if uids is None else "give uids or history, not both",
            "Pass UIDs (['31452104']) with db, or the history object from eutils_esearch/eutils_epost.",
        )
    if history is not None:
        if db is not None and db != history.db:
            raise ArgumentError(
                f"{db_name}={db!r} does not match the history handle's db {history.db!r}",
                f"Omit {db_name} (the handle carries it) or use a handle created in {db}.",
            )
        return history.db
    if db is None:
        raise ArgumentError(
            f"{db_name} is required with uids", f"Name the database, e.g. {db_name}='pubmed'."
        )
    return db


def check_term(v: str) -> str:
    if not v or not v.strip():
        raise ArgumentError("term is empty", "Give an Entrez query, e.g. 'CRISPR AND 2024[pdat]'.")
    if len(v) > 10_000:
        raise ArgumentError("term is longer than 10,000 characters", "Shorten the query or split it.")
    return v


def check_date(v: str | None) -> str | None:
    if v is None:
        return None
    m = _DATE.match(v.strip())
    if (
        not m
        or (m.group(2) and not 1 <= int(m.group(2)) <= 12)
        or (m.group(3) and not 1 <= int(m.group(3)) <= 31)
    ):
        raise ArgumentError(
            f"{v!r} is not a date NCBI accepts",
            "Use YYYY, YYYY/MM or YYYY/MM/DD, e.g. '2020' or '2024/06/30'.",
            reason="invalid_date",
        )
    return "/".join(p if i == 0 else p.zfill(2) for i, p in enumerate(g for g in m.groups() if g))


def check_sort(v: str | None) -> str | None:
    if v is not None and not _SORT.match(v):
        raise ArgumentError(
            f"sort {v!r} is not a sort order name", "Use e.g. 'relevance', 'pub_date' or 'first_author'."
        )
    return v


def check_rettype(v: str | None) -> str | None:
    if v is not None and not _RETTYPE.match(v):
        raise ArgumentError(
            f"rettype {v!r} is not a record format name", "Use e.g. 'abstract', 'medline', 'fasta', 'gb'."
        )
    return v


def check_linkname(v: str | None) -> str | None:
    if v is not None and not _LINKNAME.match(v.lower()):
        raise ArgumentError(
            f"linkname {v!r} is not a link name",
            "Link names look like 'pubmed_pmc' or 'pubmed_pubmed_citedin'; eutils_einfo db=<dbfrom> lists them.",
        )
    return v.lower() if v else v


def default_format(
    db: str, rettype: str | None, retmode: Literal["text", "xml"] | None
) -> tuple[str | None, Literal["text", "xml"]]:
    """(rettype, retmode) for efetch: abstract text for PubMed, FASTA for sequences, else explicit."""
    if rettype is not None:
        return rettype, retmode or ("xml" if rettype == "xml" else "text")
    if db == "pubmed":
        return ("abstract", "text") if retmode in (None, "text") else (None, "xml")
    if db in SEQUENCE_DBS:
        return ("fasta", "text") if retmode in (None, "text") else ("fasta", "xml")
    if retmode == "xml":
        return None, "xml"  # the database's own XML record (JATS for pmc, TaxaSet for taxonomy ...)
    raise ArgumentError(
        f"db={db!r} has no default record format",
        "Name one: rettype (e.g. 'gene_table' for gene, 'gb' for nuccore, 'docsum') or retmode='xml' for the "
        "database's XML records (e.g. JATS for pmc).",
    )


# ----------------------------------------------------------------------------- record formats

FETCH_LIMIT = 500  # records per eutils_efetch / search_then_fetch / link_then_fetch call
RETTYPE_DESC = (
    "Record format: pubmed abstract (default), medline, xml; sequences fasta (default), gb. Example: 'gb'."
)
RETMODE_DESC = "'xml' gives e.g. PubMed XML or JATS for pmc. Example: 'xml'."
RETTYPE_LENGTH = 30


# ----------------------------------------------------------------------------- the E-utilities search form

_FIELD = re.compile(r"^[A-Za-z][A-Za-z0-9 _]{0,39}$")
DB_FIELD_DESC = "Entrez database. Example: 'gene'."
TERM_FIELD_DESC = "Entrez query: [field] tags, uppercase AND/OR/NOT. Example: 'BRCA1[gene] AND human[orgn]'."
QUERY_LENGTH = 10_000


class SearchInput(ToolInput):
    """Fields every searching tool shares (eutils_esearch, eutils_search_then_fetch)."""

    db: str = Field(max_length=DB_LENGTH, description=DB_FIELD_DESC)
    term: str = Field(max_length=QUERY_LENGTH, description=TERM_FIELD_DESC)
    retstart: int = Field(
        0,
        ge=0,
        le=INDEX_MAX,
        description="0-based index of the first UID (pubmed/pmc: below 10,000). Example: 20.",
    )
    sort: str | None = Field(
        None,
        max_length=40,
        description="Sort order (pubmed: relevance, pub_date, Author, JournalName). Example: 'pub_date'.",
    )
    datetype: str | None = Field(
        None,
        max_length=4,
        description="Date the range applies to: 'pdat' (publication, default), 'edat' (added), 'mdat' (modified). "
        "Example: 'edat'.",
    )
    mindate: str | None = Field(
        None,
        max_length=10,
        description="Start, YYYY[/MM[/DD]]; either bound may be omitted. Example: '2020/01'.",
    )
    maxdate: str | None = Field(
        None, max_length=10, description="End, YYYY[/MM[/DD]]. Example: '2024/06/30'."
    )
    reldate: int | None = Field(
        None, ge=1, le=36_500, description="The last N days, instead of mindate/maxdate. Example: 30."
    )
    field: str | None = Field(
        None,
        max_length=40,
        description="One field tag applied to every word of term (eutils_einfo lists them). Example: 'tiab'.",
    )
    response_format: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    _db = field_validator("db")(lambda cls, v: check_db(v))
    _term = field_validator("term")(lambda cls, v: check_term(v))
    _sort = field_validator("sort")(lambda cls, v: check_sort(v))
    _dates = field_validator("mindate", "maxdate")(lambda cls, v: check_date(v))

    @field_validator("field")
    @classmethod
    def _field(cls, v: str | None) -> str | None:
        if v is not None and not _FIELD.match(v):
            raise ArgumentError(
                f"field {v!r} is not a search field name",
                "Use a field tag such as 'title', 'tiab', 'author' or 'mesh'; eutils_einfo db=<db> lists them.",
            )
        return v

    @field_validator("datetype")
    @classmethod
    def _datetype(cls, v: str | None) -> str | None:
        if v is not None and v.lower() not in ("pdat", "edat", "mdat", "crdt", "mhda", "dp"):
            raise ArgumentError(f"datetype {v!r} is not a date field", "Use 'pdat', 'edat' or 'mdat'.")
        return v.lower() if v else v

    @model_validator(mode="after")
    def _check_search(self) -> SearchInput:
        if self.reldate is not None and (self.mindate or self.maxdate):
            raise ArgumentError(
                "give reldate or mindate/maxdate, not both",
                "Use reldate=30 for the last 30 days, or mindate/maxdate for a fixed range.",
            )
        if self.datetype and not (self.mindate or self.maxdate or self.reldate):
            raise ArgumentError(
                "datetype needs mindate and/or maxdate, or reldate",
                "Add e.g. mindate='2020', maxdate='2024', or reldate=30.",
            )
        if (self.mindate or self.maxdate or self.reldate) and self.datetype is None:
            self.datetype = "pdat"
        if self.mindate or self.maxdate:
            self.mindate, self.maxdate = self.mindate or "1800", self.maxdate or "3000"
            lo, hi = self.mindate.split("/"), self.maxdate.split("/")
            k = min(len(lo), len(hi))
            if lo[:k] > hi[:k]:
                raise ArgumentError(
                    f"mindate {self.mindate} is after maxdate {self.maxdate}",
                    "Swap the dates.",
                    reason="invalid_date",
                )
        check_paging_ceiling(
            self.db,
            self.retstart,
            "Segment the search by date instead (mindate/maxdate, e.g. one year per search) so each result "
            "set stays under 10,000 records.",
        )
        return self

    def esearch_params(self) -> dict[str, Any]:
        """The ESearch parameters this form sets, for ``run_esearch`` (which drops the unset ones)."""
        return {
            "retstart": self.retstart,
            "sort": self.sort,
            "datetype": self.datetype,
            "mindate": self.mindate,
            "maxdate": self.maxdate,
            "reldate": self.reldate,
            "field": self.field,
        }


# ----------------------------------------------------------------------------- PubMed queries and PMID lists

# Inline formatting tags a model copies from titles (`<i>BRCA1</i>`); removed before sending.
_INLINE_TAG = re.compile(r"</?(?:i|b|em|strong|u|sup|sub)\s*>", re.IGNORECASE)
_ANY_TAG = re.compile(r"<[^>]*>")
_FIELD_TAG = re.compile(r"\[[^\]]*\]")


def strip_inline_tags(text: str) -> str:
    """Remove attribute-less inline formatting tags; everything else is sent as written."""
    return _INLINE_TAG.sub("", text)


def has_term(text: str, *, drop_field_tags: bool = False, drop_quotes: bool = False) -> bool:
    """Whether ``text`` holds a search term once markup, entities, invisible characters,
    parentheses (and optionally ``[tags]`` and quotes/brackets) are disregarded."""
    t = html.unescape(_ANY_TAG.sub("", text))
    t = rendering.strip_invisible(t)
    if drop_field_tags:
        t = _FIELD_TAG.sub("", t)
    t = re.sub(r"[()]", "", t)
    if drop_quotes:
        t = re.sub(r"[\"\[\]{}]", "", t)
    return bool(t.strip())


OTHER_FIELD = re.compile(r"; send it in `\w+`")
PMIDS_RECOVERY = (
    "Send PubMed IDs as an array of digit strings, e.g. ['33533846', '31452104'] ('PMID: 123' and PubMed "
    "URLs are accepted). Use pubmed_convert_ids for DOIs or PMC IDs."
)


def check_pmids(value: Any, limit: int, field: str = "pmids") -> list[str]:
    """Canonical PMIDs in request order, duplicates dropped; raises ArgumentError."""
    if (isinstance(value, list) and not value) or value is None:
        raise ArgumentError(f"{field} is empty", PMIDS_RECOVERY, reason="empty_id_list")
    try:
        ids = identifiers.parse_list("pmid", value)
    except identifiers.IdentifierError as exc:
        # The identifier parser points at `pmcids`/`dois` fields this tool does not have: the
        # recovery hint names pubmed_convert_ids instead.
        raise ArgumentError(OTHER_FIELD.sub("", str(exc)), PMIDS_RECOVERY, reason="malformed_id") from None
    out = list(dict.fromkeys(i.value for i in ids))
    if not out:
        raise ArgumentError(f"{field} is empty", PMIDS_RECOVERY, reason="empty_id_list")
    if len(out) > limit:
        raise ArgumentError(
            f"{len(out)} PMIDs given; at most {limit} per call",
            f"Split the list into calls of at most {limit} PMIDs each.",
            reason="too_many_ids",
        )
    return out


# A PMID list as advertised; ``check_pmids`` (a before-validator) folds what callers really send
# (numbers, 'PMID:' labels, URLs, one comma-separated string) and enforces the per-call limit.
Pmids = list[Annotated[str, Field(max_length=PMID_LENGTH)]]


def pmids_field(limit: int, what: str) -> Any:
    return Field(
        description=f"PubMed IDs {what}; numbers, 'PMID:' labels and URLs accepted, duplicates dropped. Example: ['33533846', '31452104'].",
        json_schema_extra={"minItems": 1, "maxItems": limit},
    )


def check_query(v: Any, example: str) -> Any:
    """A free-text query with a term in it (a before-validator), invisible characters removed."""
    if isinstance(v, str) and not has_term(v):
        raise ArgumentError(
            "query holds no term (only whitespace, markup, parentheses or invisible characters)",
            f"Give a real query, e.g. {example!r}.",
            reason="blank_query",
        )
    return rendering.strip_invisible(v).strip() if isinstance(v, str) else v
