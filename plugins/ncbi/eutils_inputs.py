"""Input pieces shared by the eutils_* tools: the History handle, UID lists, dates, fields.

Everything here runs inside pydantic validation, so a bad argument becomes ``invalid_argument``
before any request reaches NCBI.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from medlit.core.errors import ArgumentError

from .common import check_db

# Sequence databases whose records default to FASTA; PubMed defaults to abstract text.
SEQUENCE_DBS = frozenset({"protein", "nuccore", "nucleotide", "nucest", "nucgss", "popset", "ipg"})
# Databases whose UIDs are integers: leading zeros and "PMID:"/"PMC" prefixes are folded away.
NUMERIC_UID_DBS = frozenset({"pubmed", "pmc", "gene", "taxonomy", "mesh", "books", "medgen", "clinvar"})
# Only the first 10,000 records of a PubMed or PMC result set can be reached by paging.
PAGING_CEILING = 10_000
PAGING_CEILING_DBS = frozenset({"pubmed", "pmc"})

_UID = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
_URL_META = re.compile(r"[&=?#%/+;:<>\"'\\\s\[\](){}|]")
_PREFIX = re.compile(r"^(?:pmid|pubmed)\s*:?\s*", re.IGNORECASE)
_WEB_ENV = re.compile(r"^[A-Za-z0-9_.@\-]{1,300}$")
_DATE = re.compile(r"^(\d{4})(?:[/\-.](\d{1,2})(?:[/\-.](\d{1,2}))?)?$")
_SORT = re.compile(r"^[A-Za-z][A-Za-z_+ .]{0,39}$")
_RETTYPE = re.compile(r"^[A-Za-z][A-Za-z0-9_.\-]{0,29}$")
_LINKNAME = re.compile(r"^[a-z][a-z0-9_]{1,80}$")

UIDS_RECOVERY = (
    "Give UIDs as an array (['31452104', '31452105']) or one comma-separated string "
    "('31452104,31452105'); each is digits or an accession such as 'NP_005537.3'."
)


class HistoryHandle(BaseModel):
    """A result set stored on the NCBI History server. Pass it back exactly as received."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    db: str = Field(description="Database the stored set belongs to, e.g. 'pubmed'.")
    web_env: str = Field(description="Opaque History server session, e.g. 'MCID_6934533c4c5abba8c303da1d'.")
    query_key: str = Field(description="Set number inside that session, e.g. '1'.")
    count: int | None = Field(
        None,
        ge=0,
        description="Records in the stored set when known (filled by eutils_esearch and eutils_epost), so "
        "paging tools can tell where the set ends, e.g. 1234. Leave it as received.",
    )

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
    "History handle from eutils_esearch, eutils_epost or eutils_elink (cmd=neighbor_history), passed back "
    "unchanged, e.g. {'db': 'pubmed', 'web_env': 'MCID_6934533c4c5abba8c303da1d', 'query_key': '1'}."
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


Uids = Annotated[list[str], BeforeValidator(_split_uids)]


def uids_field(limit: int, what: str = "UIDs") -> Any:
    return Field(
        None,
        description=f"{what} as an array or a comma-separated string (at most {limit:,}); 'PMID:' prefixes and "
        "duplicates are dropped. Example: ['31452104', '31452105'] or '31452104,31452105'.",
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


def default_format(db: str, rettype: str | None, retmode: str | None) -> tuple[str | None, str]:
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
