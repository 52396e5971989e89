"""Robustness: every parser and output builder survives valid-but-unusual upstream documents.

A deterministic mutation fuzzer (seeded per corpus file, bounded in count) rewrites each recorded
response into well-formed variants -- elements and whole subtrees deleted, emptied, duplicated,
reordered, moved elsewhere; attributes removed or given junk values; unknown and namespaced
elements, comments and inline markup (``<i>``, ``<sup>``, MathML) inserted; text replaced by
non-ASCII, right-to-left, emoji, very long or non-numeric strings -- and JSON answers get keys
dropped, nulls, wrong types and empty containers. Each variant goes through the parser and the
builders downstream of it. The contract checked:

* success gives records that validate as their pydantic models and serialise to JSON, and the
  downstream builders (PubMed record -> ``pubmed_fetch_articles`` output + every citation style;
  JATS -> ``pubmed_fetch_fulltext`` shaping; esummary -> ``pubmed_docsum``) succeed as well;
* failure is only ever the documented one: :class:`MedlitError` with an ``ncbi_*`` reason from
  the E-utility parsers, ``ValueError`` (never a pydantic ``ValidationError``) naming a
  non-PubMed document from ``parse_pubmed_xml``, and nothing at all from ``read_jats`` on
  well-formed XML. KeyError/TypeError/IndexError/... are always bugs.

Hand-written edge documents, written from the PubMed DTD, the JATS tag library and the
E-utilities DTDs, follow the fuzzer.
"""

from __future__ import annotations

import copy
import json
import random
import traceback
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lxml import etree
from pydantic import BaseModel, ValidationError

from medlit.core.errors import MedlitError
from medlit.core.jats.models import FulltextArticle
from medlit.core.jats.reader import read_jats
from medlit.plugins.fulltext.shape import (
    apply_budget_structured,
    cap_sections,
    filter_sections,
    to_structured,
)
from medlit.plugins.ncbi.citation_styles import STYLES, cite_key, format_citation
from medlit.plugins.ncbi.parse.citmatch import parse_ecitmatch
from medlit.plugins.ncbi.parse.einfo import parse_einfo
from medlit.plugins.ncbi.parse.elink import parse_elink
from medlit.plugins.ncbi.parse.eutils import (
    parse_egquery,
    parse_epost,
    parse_esearch,
    parse_espell,
    parse_esummary,
    pubmed_docsum,
)
from medlit.plugins.ncbi.parse.idconv import parse_idconv
from medlit.plugins.ncbi.parse.mesh import parse_mesh_docsum, parse_mesh_esummary
from medlit.plugins.ncbi.parse.pubmed import parse_pubmed_xml
from medlit.plugins.ncbi.parse.pubmed_records import PubMedArticle
from medlit.plugins.ncbi.tools.pubmed_fetch import (
    FetchArticlesInput,
    FetchArticlesOutput,
    render_fetch,
    to_output,
)

from support.corpus import corpus_glob, corpus_root

SEED = 20250611
_NS_MML = "http://www.w3.org/1998/Math/MathML"
_NS_XLINK = "http://www.w3.org/1999/xlink"

# ---------------------------------------------------------------------------------------------
# the contract


def _roundtrip(model: BaseModel) -> None:
    """The record serialises to JSON and validates as its own model.

    (json.loads, not model_validate_json: pydantic's JSON reader stops at ~200 levels of nesting,
    which only absurdly deep inputs reach -- serialising them is what the tools do, and works.)
    """
    type(model).model_validate(json.loads(model.model_dump_json()))


_FETCH_ARGS = FetchArticlesInput(pmids=["1"], includeGrants=True, includeInvestigators=True)
_FETCH_ARGS_JSON = FetchArticlesInput(pmids=["1"], includeMesh=False, responseFormat="json")


def _pubmed_downstream(records: list[PubMedArticle]) -> None:
    outs = []
    for a in records:
        _roundtrip(a)
        out = to_output(a, _FETCH_ARGS)
        _roundtrip(out)
        to_output(a, _FETCH_ARGS_JSON)
        outs.append(out)
        for style in (*STYLES, "nlm"):
            text = format_citation(a, style)
            assert isinstance(text, str) and text, style
        cite_key(a)
    result = FetchArticlesOutput(articles=outs, totalReturned=len(outs))
    _roundtrip(result)
    render_fetch(result, _FETCH_ARGS)
    render_fetch(result, _FETCH_ARGS_JSON)


def check_pubmed(data: bytes) -> None:
    try:
        records = parse_pubmed_xml(data, include_investigators=True, include_grants=True)
    except ValidationError:
        raise
    except ValueError as exc:
        # Documented: a body that is not PubMed XML. A record missing its mandatory wrapper
        # (MedlineCitation, BookDocument) is skipped, never an error.
        documented = ("not PubMed XML", "not well-formed XML", "NCBI returned an error")
        assert any(d in str(exc) for d in documented), f"undocumented ValueError: {exc}"
        return
    _pubmed_downstream(records)


def _jats_downstream(articles: list[FulltextArticle], flavor: int) -> None:
    for art in articles:
        _roundtrip(art)
        rec = to_structured(art, "pmc", include_assets=flavor % 2 == 0)
        _roundtrip(rec)
        filter_sections(rec.model_copy(deep=True), ["method", "results", "discussion"])
        cap_sections(rec.model_copy(deep=True), 1)
        budgeted = rec.model_copy(deep=True)
        apply_budget_structured(
            budgeted, 1500 if flavor % 3 else None, 300, ("truncate", "outline")[flavor % 2]
        )
        _roundtrip(budgeted)


def check_jats(data: bytes, flavor: int = 0) -> None:
    # Well-formed JATS must never raise, whatever it holds.
    articles = read_jats(data, include_references=flavor % 4 != 3, max_depth=1 + flavor % 3)
    _jats_downstream(articles, flavor)


_NCBI_REASONS = {
    "ncbi_invalid_response",
    "ncbi_resource_not_found",
    "ncbi_upstream_error",
    "ncbi_bad_request",
}


def _documented(call: Callable[[], Any]) -> Any:
    """Run an E-utility parser: a MedlitError with an ncbi_* reason is the only allowed failure."""
    try:
        return call()
    except MedlitError as err:
        assert err.reason in _NCBI_REASONS, err.reason
        assert err.message.strip()
        return None


def _docsum_downstream(result: Any) -> None:
    if result is None:
        return
    _roundtrip(result)
    for doc in result.docs:
        _roundtrip(pubmed_docsum(doc))
        _roundtrip(parse_mesh_docsum(doc))


_EUTILS: dict[str, Callable[[bytes, bool], None]] = {
    "esearch": lambda d, j: _maybe_roundtrip(_documented(lambda: parse_esearch(d, json_mode=j))),
    "esummary": lambda d, j: _docsum_downstream(_documented(lambda: parse_esummary(d, json_mode=j))),
    "mesh": lambda d, j: _maybe_roundtrip_all(_documented(lambda: parse_mesh_esummary(d, json_mode=j))),
    "elink": lambda d, j: _maybe_roundtrip(_documented(lambda: parse_elink(d, json_mode=j))),
    "epost": lambda d, j: _maybe_roundtrip(_documented(lambda: parse_epost(d))),
    "espell": lambda d, j: _maybe_roundtrip(_documented(lambda: parse_espell(d))),
    "egquery": lambda d, j: _maybe_roundtrip(_documented(lambda: parse_egquery(d))),
    "idconv": lambda d, j: _maybe_roundtrip(_documented(lambda: parse_idconv(d))),
    "einfo": lambda d, j: _maybe_roundtrip(_documented(lambda: parse_einfo(d))),
}


def _maybe_roundtrip(result: Any) -> None:
    if result is not None:
        _roundtrip(result)


def _maybe_roundtrip_all(results: list[Any] | None) -> None:
    for result in results or []:
        _roundtrip(result)


def check(kind: str, data: bytes, json_mode: bool = False, flavor: int = 0) -> None:
    """Feed one body to the parser for ``kind`` and everything downstream of it."""
    if kind == "pubmed":
        check_pubmed(data)
    elif kind == "jats":
        check_jats(data, flavor)
    else:
        _EUTILS[kind](data, json_mode)


# ---------------------------------------------------------------------------------------------
# XML mutations

_WEIRD_TEXT = [
    "",
    " \t\n ",
    "n/a",
    "12a",
    "0",
    "-1",
    "00000",
    "1.5",
    "NaN",
    "²",  # isdigit() but not int()-able
    "①",
    "٣",  # Arabic-Indic three: int()-able
    "9" * 5000,  # beyond int()'s default 4300-digit limit
    "x" * 20000,
    "مرحبا بالعالم",
    "\u202eevil RTL override\u202c",
    "שלום עולם",
    "🧬🦠💊 👩🏽‍🔬",
    "Ünïcödé ß ø Ł Æ ı",
    "e\u0301\u0301",
    "<&>\"'",
    "[Figure 1]",
    "10.",
    "PMC",
    "Jan-Feb",
    "Spring",
    "2020 Dec-2021 Jan",
    "13",
    "31",
    "||",
]
_WEIRD_ATTR = ["", "0", "-3", "abc", "2.5", "99999", "9" * 5000, "Y", "N", "yes", "🧬", "x y z", "pmc"]
_INLINE = [
    "<i>ital</i>",
    "<b/>",
    "<sup>2</sup>",
    "<sub>i</sub>",
    "<sup><xref ref-type='bibr' rid='b1'>1</xref></sup>",
    f"<mml:math xmlns:mml='{_NS_MML}'><mml:msup><mml:mi>x</mml:mi><mml:mn>2</mml:mn></mml:msup></mml:math>",
    f"<mml:math xmlns:mml='{_NS_MML}'><mml:mfrac><mml:mi>a</mml:mi></mml:mfrac><mml:semantics/></mml:math>",
    f"<math xmlns='{_NS_MML}'><mrow><msubsup><mi>x</mi></msubsup><mmultiscripts/><mroot/></mrow></math>",
    "<inline-formula><tex-math>\\documentclass{x}</tex-math></inline-formula>",
    "<xref ref-type='bibr'/>",
    "<name><surname/></name>",
]
_UNKNOWN = [
    "<zzUnknown attr='1'>mystery <b>text</b></zzUnknown>",
    "<zzEmpty/>",
    "<q:foreign xmlns:q='urn:example:q' q:flag='1'><q:inner>namespaced</q:inner></q:foreign>",
    f"<x:extra xmlns:x='{_NS_XLINK}' x:href='http://example.org'/>",
    "<jats:sec xmlns:jats='http://jats.nlm.nih.gov'><jats:title>NS section</jats:title></jats:sec>",
    "<sec><title/><sec><p>nested</p></sec></sec>",
    "<table-wrap><table><tr><td rowspan='99' colspan='0'>c</td></tr><tr/></table></table-wrap>",
    "<table-wrap-group><table-wrap-group><table-wrap/></table-wrap-group></table-wrap-group>",
    "<list><list-item/><list-item><label/></list-item></list>",
    "<fig><caption/></fig>",
    "<Author><LastName/></Author>",
    "<AuthorList><Author ValidYN='N'/></AuthorList>",
    "<Item Name='x' Type='List'><Item Name='y' Type='Integer'>n/a</Item></Item>",
    "<DocSum><Id/><Item/></DocSum>",
    "<ArticleId IdType='pmc'>PMC</ArticleId>",
    "<ERROR/>",
]
_KNOWN_ATTRS = ["colspan", "rowspan", "IdType", "Type", "Name", "pub-id-type", "date-type", "pub-type",
                "Label", "NlmCategory", "MajorTopicYN", "ValidYN", "EIdType", "ref-type", "uid", "status",
                "abstract-type", "list-type", "name-style", "iso-8601-date", "HasLinks", "HasNeighbor"]  # fmt: skip


def _fragment(xml: str) -> etree._Element:
    return etree.fromstring(xml.encode())


def _elements(root: etree._Element) -> list[etree._Element]:
    return [e for e in root.iter() if isinstance(e.tag, str)]


def _pick(rng: random.Random, root: etree._Element, *, allow_root: bool = False) -> etree._Element | None:
    """An element, chosen by tag first so rare elements get as much attention as common ones."""
    by_tag: dict[str, list[etree._Element]] = {}
    for el in _elements(root):
        if allow_root or el is not root:
            by_tag.setdefault(el.tag, []).append(el)
    if not by_tag:
        return None
    tag = rng.choice(sorted(by_tag))
    return rng.choice(by_tag[tag])


def _insert_at(rng: random.Random, parent: etree._Element, child: etree._Element) -> None:
    parent.insert(rng.randint(0, len(parent)), child)


def _mutate_xml(root: etree._Element, rng: random.Random) -> str:
    """Apply one random mutation in place; returns a short description for failure reports."""
    op = rng.choice(_XML_OPS)
    el = _pick(rng, root, allow_root=op in ("insert_unknown", "insert_inline", "attr_drop", "reorder"))
    if el is None:
        return "noop"
    where = etree.QName(el).localname if isinstance(el.tag, str) else "?"
    parent = el.getparent()
    if op == "delete" and parent is not None:
        if el.tail:  # keep the tail text that followed the element
            prev = el.getprevious()
            if prev is not None:
                prev.tail = (prev.tail or "") + el.tail
            else:
                parent.text = (parent.text or "") + el.tail
        parent.remove(el)
    elif op == "empty":
        el.text = None
        if rng.random() < 0.5:
            for child in list(el):
                el.remove(child)
    elif op == "attr_drop":
        if el.attrib and rng.random() < 0.5:
            del el.attrib[rng.choice(sorted(el.attrib))]
        else:
            el.attrib.clear()
    elif op == "attr_weird":
        names = sorted(el.attrib) or [rng.choice(_KNOWN_ATTRS)]
        name = rng.choice([*names, rng.choice(_KNOWN_ATTRS)])
        value = rng.choice(_WEIRD_ATTR)
        where += f"@{name}={value[:10]!r}"
        el.set(name, value)
    elif op == "duplicate" and parent is not None:
        parent.insert(parent.index(el) + 1, copy.deepcopy(el))
    elif op == "reorder":
        kids = list(el)
        rng.shuffle(kids)
        for child in kids:
            el.remove(child)  # lxml moves tails with their elements
        el.extend(kids)
    elif op == "transplant":
        # Copy an element somewhere it does not belong (a <sec> in a <title>, an Author in a Journal).
        target = _pick(rng, root, allow_root=True)
        if target is not None:
            _insert_at(rng, target, copy.deepcopy(el))
            where += f"->{etree.QName(target).localname}"
    elif op == "insert_unknown":
        snippet = rng.choice(_UNKNOWN)
        where += f"+{snippet[:20]}"
        _insert_at(rng, el, _fragment(snippet))
    elif op == "insert_comment":
        node = etree.Comment(" a comment ") if rng.random() < 0.5 else etree.ProcessingInstruction("pi", "x")
        _insert_at(rng, el, node)
    elif op == "insert_inline":
        snippet = _fragment(rng.choice(_INLINE))
        snippet.tail = rng.choice(["", " tail", "²"])
        text = el.text or ""
        cut = rng.randint(0, len(text))
        el.text = text[:cut]
        snippet.tail = (snippet.tail or "") + text[cut:]
        el.insert(0, snippet)
        where += f"+{etree.QName(snippet).localname}"
    elif op == "text":
        value = rng.choice(_WEIRD_TEXT)
        where += f"={value[:12]!r}"
        el.text = value
        if rng.random() < 0.5:
            for child in list(el):
                el.remove(child)
    elif op == "tail":
        el.tail = rng.choice(_WEIRD_TEXT)
    return f"{op}:{where}"


_XML_OPS = [
    "delete", "delete", "empty", "attr_drop", "attr_weird", "attr_weird", "duplicate", "reorder",
    "transplant", "insert_unknown", "insert_comment", "insert_inline", "text", "text", "tail",
]  # fmt: skip


def _base_tree(data: bytes) -> etree._Element | None:
    for recover in (False, True):
        parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, recover=recover)
        try:
            root = etree.fromstring(data.lstrip(b"\xef\xbb\xbf \t\r\n"), parser=parser)
        except etree.XMLSyntaxError:
            continue
        if root is not None:
            return root
    return None


# ---------------------------------------------------------------------------------------------
# JSON mutations

_WEIRD_JSON: list[Any] = [None, "", "n/a", "12a", 0, -1, 1.5, True, [], {}, [None], {"": None}, "🧬",
                          "9" * 5000, [[["deep"]]], {"value": None}, "x" * 20000]  # fmt: skip


def _json_slots(doc: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) pair in a JSON document."""
    out: list[tuple[Any, Any]] = []
    stack = [doc]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            out.append((node, key))
            if isinstance(value, dict | list):
                stack.append(value)
    return out


def _wrong_type(value: Any, rng: random.Random) -> Any:
    if isinstance(value, str):
        return rng.choice([12, 0, [value], {"value": value}, None, 1.5])
    if isinstance(value, bool | int | float):
        return rng.choice([str(value), "n/a", "12a", [value], None])
    if isinstance(value, list):
        return rng.choice(["", {}, [], [None], [[]], "a,b", 3])
    if isinstance(value, dict):
        return rng.choice([[], "", None, {}, [value], 0])
    return rng.choice(_WEIRD_JSON)


def _mutate_json(doc: Any, rng: random.Random) -> str:
    slots = _json_slots(doc)
    if not slots:
        return "noop"
    container, key = rng.choice(slots)
    op = rng.choice(["drop", "null", "wrong_type", "wrong_type", "empty", "weird", "duplicate"])
    value = container[key]
    if op == "drop":
        del container[key]
    elif op == "null":
        container[key] = None
    elif op == "wrong_type":
        container[key] = _wrong_type(value, rng)
    elif op == "empty":
        container[key] = type(value)() if isinstance(value, dict | list | str) else None
    elif op == "weird":
        container[key] = copy.deepcopy(rng.choice(_WEIRD_JSON))
    elif op == "duplicate" and isinstance(container, list):
        container.insert(key, copy.deepcopy(value))
    return f"{op}:{key!s:.30}"


# ---------------------------------------------------------------------------------------------
# which parser reads which corpus file


def _kind(rel: str) -> str | None:
    if rel.startswith(("pmc/", "europepmc/fullTextXML/")):
        return "jats"
    if rel.startswith("ncbi/efetch_pubmed/"):
        return "pubmed"
    if rel.startswith("mesh/esummary_mesh/"):
        return "mesh"
    if rel.startswith("idconv/"):
        return "idconv"
    folder = rel.split("/")[1] if rel.startswith("ncbi/") else ""
    return folder if folder in _EUTILS else None


def _corpus_files() -> list[tuple[str, Path]]:
    root = corpus_root()
    out = []
    for path in corpus_glob("**/*"):
        if not path.is_file() or path.suffix not in (".xml", ".nxml", ".json", ".html", ".txt"):
            continue
        rel = str(path.relative_to(root))
        if _kind(rel):
            out.append((rel, path))
    return out


_FILES = _corpus_files()


# Variants per file, scaled down for big documents so the whole module stays well under 20 s.
def _variant_count(kind: str, size: int) -> int:
    budget = 450_000 if kind == "jats" else 1_000_000  # bytes of variants per file
    return max(3, min(40, budget // max(size, 1)))


def _seed(rel: str) -> int:
    return SEED ^ zlib.crc32(rel.encode())


def _report(failures: list[str]) -> str:
    return "\n\n".join(failures[:5]) + (f"\n\n... and {len(failures) - 5} more" if len(failures) > 5 else "")


@pytest.mark.parametrize(("rel", "path"), _FILES, ids=[rel for rel, _ in _FILES])
def test_corpus_file_mutations(rel: str, path: Path) -> None:
    kind = _kind(rel)
    assert kind is not None
    data = path.read_bytes()
    is_json = path.suffix == ".json"
    rng = random.Random(_seed(rel))
    failures: list[str] = []

    def run(variant: bytes, log: list[str], flavor: int = 0) -> None:
        try:
            check(kind, variant, is_json, flavor)
        except Exception:  # report every crash of the file, not just the first
            failures.append(f"{rel} after {log}:\n{traceback.format_exc(limit=-4)}")

    run(data, ["original"])  # the recorded body itself (malformed ones must fail cleanly)
    n = _variant_count(kind, len(data))
    if is_json:
        text = data.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
        while text.startswith("//"):
            text = text.split("\n", 1)[1].lstrip() if "\n" in text else ""
        try:
            base = json.loads(text)
        except json.JSONDecodeError:
            base = None
        for i in range(n if base is not None else 0):
            doc = copy.deepcopy(base)
            log = [_mutate_json(doc, rng) for _ in range(rng.randint(1, 4))]
            run(json.dumps(doc).encode(), log, i)
    else:
        tree = _base_tree(data)
        for i in range(n if tree is not None else 0):
            root = copy.deepcopy(tree)
            log = [_mutate_xml(root, rng) for _ in range(rng.randint(1, 6))]
            run(etree.tostring(root, encoding="utf-8", xml_declaration=True), log, i)
    assert not failures, _report(failures)


# ---------------------------------------------------------------------------------------------
# JSON bodies the corpus lacks, fuzzed the same way

_ELINK_JSON = {
    "header": {"type": "elink", "version": "0.3"},
    "linksets": [
        {
            "dbfrom": "pubmed",
            "ids": ["35000000"],
            "linksetdbs": [
                {"dbto": "pubmed", "linkname": "pubmed_pubmed", "links": ["35000000", "34000001"]},
                {"dbto": "pubmed", "linkname": "pubmed_pubmed_citedin", "links": [{"id": "3", "score": "9"}]},
            ],
            "linksetdbhistories": [{"dbto": "pmc", "linkname": "pubmed_pmc", "querykey": "2"}],
            "webenv": "MCID_json",
            "idurllist": [
                {
                    "id": "10611131",
                    "objurls": [
                        {
                            "url": {"value": "https://example.org/full", "lng": "EN"},
                            "categories": ["Full Text Sources"],
                            "provider": {"name": "Example", "url": {"value": "https://example.org"}},
                        }
                    ],
                }
            ],
            "idchecklist": {
                "ids": [{"value": "12068369", "hasneighbor": "Y"}],
                "idlinksets": [{"id": "1", "linkinfos": [{"dbto": "pmc", "priority": "180"}]}],
            },
        }
    ],
}
_IDCONV_JSON = {
    "status": "ok",
    "request": "ids=1%2C2;idtype=pmid",
    "records": [
        {"pmcid": "PMC1", "pmid": 1, "doi": "10.1/x", "versions": [{"pmcid": "PMC1.1", "current": "true"}]},
        {"requested-id": "2", "status": "error", "errmsg": "invalid article id", "live": "false"},
    ],
}
_HAND_JSON = {"elink": _ELINK_JSON, "idconv": _IDCONV_JSON}


@pytest.mark.parametrize("kind", sorted(_HAND_JSON))
def test_hand_json_mutations(kind: str) -> None:
    rng = random.Random(_seed(kind))
    failures = []
    for i in range(60):
        doc = copy.deepcopy(_HAND_JSON[kind])
        log = [_mutate_json(doc, rng) for _ in range(rng.randint(1, 4))]
        try:
            check(kind, json.dumps(doc).encode(), True, i)
        except Exception:
            failures.append(f"{kind} after {log}:\n{traceback.format_exc(limit=-4)}")
    assert not failures, _report(failures)


def test_ecitmatch_answers_of_any_shape() -> None:
    sent = ["proc natl acad sci u s a|1991|88|3248|mann bj|Art1|", "science|1987|235|182|palmenberg ac|Art2|"]
    rng = random.Random(SEED)
    pieces = ["", "|", "||||||", "Art1", "Art2", "1000", "AMBIGUOUS 1,2", "AMBIGUOUS (14 citations)",
              "NOT_FOUND;INVALID_JOURNAL", "²", "🧬", "\r", "x" * 500]  # fmt: skip
    bodies = [
        "",
        "\n\n",
        "garbage",
        "|" * 40,
        "proc natl acad sci u s a|1991|88|3248|mann bj|Art1|2014248\n",
        "science|1987|235|182|palmenberg ac|Art2|\nproc|1991|88|3248|mann bj|Art1|AMBIGUOUS 1 2\n",
        *("|".join(rng.choice(pieces) for _ in range(rng.randint(1, 9))) for _ in range(40)),
    ]
    for body in bodies:
        for citations in (sent, sent[:1], [], ["", "|", "a|b"]):
            matches = parse_ecitmatch(body, citations)
            assert len(matches) == len(citations)
            for m in matches:
                _roundtrip(m)


# ---------------------------------------------------------------------------------------------
# hand-written edge documents: PubMed (PubMed DTD, pubmed_250101.dtd)


def _pubmed(citation: str, pubmed_data: str = "", *, article: str | None = None) -> bytes:
    art = (
        article
        if article is not None
        else "<Article><Journal><JournalIssue><Volume>1</Volume></JournalIssue><Title>J</Title></Journal>"
        "<ArticleTitle>T</ArticleTitle></Article>"
    )
    return (
        f"<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID>{art}{citation}</MedlineCitation>"
        f"{pubmed_data}</PubmedArticle></PubmedArticleSet>"
    ).encode()


def _article(inner: str) -> str:
    return f"<Article>{inner}</Article>"


_PUBMED_EDGES = {
    "collective_name_only": _pubmed(
        "",
        article=_article(
            "<ArticleTitle>T</ArticleTitle><AuthorList CompleteYN='Y'><Author ValidYN='Y'>"
            "<CollectiveName>The <i>Study</i> Group</CollectiveName></Author></AuthorList>"
        ),
    ),
    "medline_date_only": _pubmed(
        "",
        article=_article(
            "<Journal><JournalIssue><PubDate><MedlineDate>1998 Dec-1999 Jan</MedlineDate>"
            "</PubDate></JournalIssue></Journal>"
        ),
    ),
    "medline_date_without_year": _pubmed(
        "",
        article=_article(
            "<Journal><JournalIssue><PubDate><MedlineDate>Winter</MedlineDate></PubDate>"
            "<PubDate><Season>Spring</Season></PubDate></JournalIssue></Journal>"
        ),
    ),
    "elocation_only": _pubmed(
        "",
        article=_article(
            "<ArticleTitle>T</ArticleTitle><ELocationID EIdType='pii' ValidYN='Y'>e0221829"
            "</ELocationID><ELocationID EIdType='doi'>10.1/x</ELocationID>"
        ),
    ),
    "empty_pagination": _pubmed("", article=_article("<Pagination/><Pagination><MedlinePgn/></Pagination>")),
    "pagination_odd_pages": _pubmed(
        "",
        article=_article(
            "<Pagination><StartPage>②</StartPage><EndPage>-</EndPage><MedlinePgn>-;,</MedlinePgn>"
            "</Pagination>"
        ),
    ),
    "pagination_unicode_digits": _pubmed(  # isdigit() but not int(): MLA's page shortening once crashed
        "",
        article=_article(
            "<Pagination><StartPage>①②③</StartPage><EndPage>①②④</EndPage></Pagination>"
            "<Journal><JournalIssue><PubDate><Year>2001</Year><Month>①</Month><Day>²</Day>"
            "</PubDate></JournalIssue></Journal>"
        ),
    ),
    "pagination_huge_numbers": _pubmed(  # past int()'s 4300-digit limit
        "",
        article=_article(
            f"<Pagination><StartPage>{'1' * 5000}</StartPage><EndPage>{'2' * 5000}</EndPage>"
            f"</Pagination><Journal><JournalIssue><PubDate><Year>{'9' * 5000}</Year>"
            f"<Month>{'1' * 5000}</Month></PubDate></JournalIssue></Journal>"
        ),
    ),
    "multiple_article_id_lists": _pubmed(
        "",
        "<PubmedData><ArticleIdList><ArticleId IdType='pubmed'>1</ArticleId></ArticleIdList>"
        "<ArticleIdList><ArticleId IdType='doi'>10.1/y</ArticleId><ArticleId IdType='pmc'>PMC</ArticleId>"
        "<ArticleId/></ArticleIdList></PubmedData>",
    ),
    "article_date_without_pub_date": _pubmed(
        "",
        article=_article(
            "<Journal><JournalIssue CitedMedium='Internet'/></Journal>"
            "<ArticleDate DateType='Electronic'><Year>2020</Year><Month>13</Month>"
            "<Day>32</Day></ArticleDate>"
        ),
    ),
    "dates_with_junk_numbers": _pubmed(
        "",
        article=_article(
            "<Journal><JournalIssue><PubDate><Year>n/a</Year><Month>00</Month><Day>²</Day>"
            "</PubDate></JournalIssue></Journal>"
        ),
    ),
    "no_article_at_all": b"<PubmedArticle><MedlineCitation><PMID>7</PMID></MedlineCitation></PubmedArticle>",
    "no_pmid": b"<PubmedArticleSet><PubmedArticle><MedlineCitation/></PubmedArticle></PubmedArticleSet>",
    "only_delete_citation": b"<PubmedArticleSet><DeleteCitation><PMID>1</PMID></DeleteCitation></PubmedArticleSet>",
    "wrapperless_records_among_good_ones": (
        b"<PubmedArticleSet><PubmedArticle><PubmedData/></PubmedArticle>"
        b"<PubmedArticle><MedlineCitation><PMID>8</PMID></MedlineCitation></PubmedArticle>"
        b"<PubmedBookArticle><PubmedBookData/></PubmedBookArticle><PubmedArticle/><PubmedBookArticle/>"
        b"<PubmedBookArticle><BookDocument><PMID>9</PMID></BookDocument></PubmedBookArticle>"
        b"</PubmedArticleSet>"
    ),
    "mesh_without_descriptor": _pubmed(
        "<MeshHeadingList><MeshHeading><QualifierName MajorTopicYN='Y'>x</QualifierName></MeshHeading>"
        "<MeshHeading><DescriptorName/></MeshHeading></MeshHeadingList>"
        "<ChemicalList><Chemical><RegistryNumber>0</RegistryNumber></Chemical></ChemicalList>"
        "<CommentsCorrectionsList><CommentsCorrections/><CommentsCorrections RefType='RetractionIn'/>"
        "</CommentsCorrectionsList>"
    ),
    "people_fragments": _pubmed(
        "",
        article=_article(
            "<AuthorList><Author><Initials>AB</Initials></Author><Author><ForeName>Jean-"
            "</ForeName></Author><Author><LastName>Ø</LastName><Initials>Initial</Initials>"
            "<Suffix/><Identifier Source='ORCID'>junk</Identifier><AffiliationInfo/></Author>"
            "<Author><LastName>-</LastName><ForeName>- -</ForeName></Author></AuthorList>"
            "<AuthorList Type='editors'><Author><LastName>E</LastName></Author></AuthorList>"
        ),
    ),
    "abstract_labels_only": _pubmed(
        "",
        article=_article(
            "<Abstract><AbstractText Label='BACKGROUND'/><AbstractText/>"
            "<AbstractText><mml:math xmlns:mml='http://www.w3.org/1998/Math/MathML'>"
            "<mml:mfrac/><mml:msubsup/><mml:mroot><mml:mi>x</mml:mi></mml:mroot>"
            "<mml:mmultiscripts><mml:mi>C</mml:mi><mml:mprescripts/><mml:mn>14</mml:mn>"
            "</mml:mmultiscripts></mml:math></AbstractText></Abstract>"
        ),
    ),
    "book_without_book_title": (
        b"<PubmedArticleSet><PubmedBookArticle><BookDocument><PMID>2</PMID><Book/></BookDocument>"
        b"</PubmedBookArticle></PubmedArticleSet>"
    ),
    "book_without_book": (
        b"<PubmedBookArticle><BookDocument><PMID>3</PMID><ArticleTitle>Ch</ArticleTitle>"
        b"<Sections><Section><Section><SectionTitle>deep</SectionTitle></Section></Section></Sections>"
        b"<ContributionDate><Year>2001</Year></ContributionDate><DateRevised><Month>Jan</Month></DateRevised>"
        b"</BookDocument><PubmedBookData><ArticleIdList/></PubmedBookData></PubmedBookArticle>"
    ),
    "book_sections_deeply_nested": (
        b"<PubmedBookArticle><BookDocument><PMID>5</PMID><Sections>"
        + b"<Section><SectionTitle>t</SectionTitle>" * 240
        + b"</Section>" * 240
        + b"</Sections></BookDocument></PubmedBookArticle>"
    ),
    "book_editors_only": (
        b"<PubmedBookArticle><BookDocument><PMID>4</PMID><Book><BookTitle>B</BookTitle>"
        b"<AuthorList Type='editors'><Author><CollectiveName>Eds</CollectiveName></Author></AuthorList>"
        b"<BeginningDate><Season>Fall</Season></BeginningDate><EndingDate><Year>1990</Year></EndingDate>"
        b"<Medium>Internet</Medium><Edition/></Book></BookDocument></PubmedBookArticle>"
    ),
}


@pytest.mark.parametrize("name", sorted(_PUBMED_EDGES))
def test_pubmed_edge_documents(name: str) -> None:
    check_pubmed(_PUBMED_EDGES[name])


def test_pubmed_edge_semantics() -> None:
    (a,) = parse_pubmed_xml(_PUBMED_EDGES["collective_name_only"])
    assert [p.collectiveName for p in a.authors] == ["The Study Group"]
    (a,) = parse_pubmed_xml(_PUBMED_EDGES["medline_date_only"])
    assert a.pubDate is not None and a.pubDate.year == 1998 and a.pubDate.medlineDate == "1998 Dec-1999 Jan"
    (a,) = parse_pubmed_xml(_PUBMED_EDGES["elocation_only"])
    assert a.journal is not None and a.journal.elocationId == "e0221829" and a.journal.pages is None
    assert "Article e0221829" in format_citation(a, "apa")
    (a,) = parse_pubmed_xml(_PUBMED_EDGES["multiple_article_id_lists"])
    assert a.pmid == "1"  # the first list is read; the second does not break anything
    (a,) = parse_pubmed_xml(_PUBMED_EDGES["dates_with_junk_numbers"])
    assert a.pubDate is not None and a.pubDate.year is None and a.pubDate.day is None
    (a,) = parse_pubmed_xml(_PUBMED_EDGES["book_without_book_title"])
    assert a.recordType == "book" and a.title is None
    assert parse_pubmed_xml(_PUBMED_EDGES["only_delete_citation"]) == []
    # Records missing MedlineCitation/BookDocument are skipped; the others in the batch still parse.
    good = parse_pubmed_xml(_PUBMED_EDGES["wrapperless_records_among_good_ones"])
    assert [(a.pmid, a.recordType) for a in good] == [("8", "journal-article"), ("9", "book")]
    assert parse_pubmed_xml(b"<PubmedBookArticle><PubmedBookData/></PubmedBookArticle>") == []
    with pytest.raises(ValueError, match="not PubMed XML"):
        parse_pubmed_xml(b"<eSearchResult><Count>1</Count></eSearchResult>")


# ---------------------------------------------------------------------------------------------
# hand-written edge documents: JATS (JATS 1.3 tag library)

_JATS_NS = 'xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:mml="http://www.w3.org/1998/Math/MathML"'


def _jats(body: str = "", *, front: str = "", back: str = "", extra: str = "") -> bytes:
    return (
        f"<article {_JATS_NS} article-type='research-article'><front><article-meta>{front}</article-meta>"
        f"</front><body>{body}</body>{back}{extra}</article>"
    ).encode()


_DEEP = 240  # libxml2 (without huge_tree) refuses nesting past 256: stay just under it
_JATS_EDGES = {
    "sec_without_title": _jats("<sec><p>a</p><sec><sec-meta/><p>b</p></sec></sec><sec/>"),
    "nested_table_wrap_group": _jats(
        "<table-wrap-group><label>G</label><table-wrap-group><table-wrap id='t1'><table><tr><td>1</td></tr>"
        "</table></table-wrap></table-wrap-group><table-wrap/></table-wrap-group>"
    ),
    "rowspan_overflowing_grid": _jats(
        "<table-wrap><table><thead><tr><th rowspan='50'>h</th><th colspan='3'>x</th></tr></thead>"
        "<tbody><tr><td rowspan='9999999999999'>a</td></tr><tr/><tr><td/></tr></tbody></table></table-wrap>"
    ),
    "bad_spans": _jats(
        "<table-wrap><table><tr><td colspan='0'>a</td><td colspan='abc'>b</td><td colspan='-4'>c</td>"
        "<td colspan='99999'>d</td><td rowspan=''>e</td><td colspan='²'>f</td><td colspan=' 2 '>g</td>"
        "</tr></table></table-wrap>"
    ),
    "empty_table": _jats(
        "<table-wrap><table/></table-wrap><table/><table-wrap><table><col/></table></table-wrap>"
    ),
    "cals_and_image_tables": _jats(
        "<table-wrap><alternatives><graphic xlink:href='t.gif'/><oasis:table "
        "xmlns:oasis='http://docs.oasis-open.org/ns/oasis-exchange/table'><oasis:tgroup/></oasis:table>"
        "</alternatives></table-wrap><table-wrap><graphic/></table-wrap>"
    ),
    "body_with_only_sec_meta": _jats("<sec-meta><kwd-group><kwd>k</kwd></kwd-group></sec-meta>"),
    "article_with_front_stub": (
        f"<article {_JATS_NS}><front-stub><title-group><article-title>S</article-title></title-group>"
        "</front-stub><body><p>x</p></body></article>"
    ).encode(),
    "sub_article_in_sub_article": _jats(
        "<p>main</p>",
        extra="<sub-article id='s1' article-type='decision-letter'><front-stub><article-id pub-id-type='doi'>"
        "10.1/s</article-id></front-stub><body><p>s1</p></body><sub-article id='s2'><front><article-meta/>"
        "</front><body><sec><p>s2</p></sec></body><response id='r'><body/></response></sub-article>"
        "</sub-article><sub-article/>",
    ),
    "no_front_no_body": f"<article {_JATS_NS}/>".encode(),
    "empty_articleset": b"<pmc-articleset/>",
    "articleset_with_error": b"<pmc-articleset><error>not found</error></pmc-articleset>",
    "deeply_nested_sections": _jats("<sec><title>t</title>" * _DEEP + "<p>x</p>" + "</sec>" * _DEEP),
    "deeply_nested_lists": _jats(
        "<list><list-item>" * (_DEEP // 2) + "x" + "</list-item></list>" * (_DEEP // 2)
    ),
    "deeply_nested_inline": _jats("<p>" + "<italic>" * _DEEP + "x" + "</italic>" * _DEEP + "</p>"),
    "deeply_nested_mathml": _jats(
        "<p><inline-formula><mml:math>"
        + "<mml:mrow>" * _DEEP
        + "<mml:mi>x</mml:mi>"
        + "</mml:mrow>" * _DEEP
        + "</mml:math></inline-formula></p>"
    ),
    "deeply_nested_boxes": _jats("<boxed-text>" * _DEEP + "<p>b</p>" + "</boxed-text>" * _DEEP),
    "deeply_nested_quotes": _jats("<disp-quote>" * _DEEP + "<p>b</p>" + "</disp-quote>" * _DEEP),
    "deeply_nested_untitled_sections": _jats("<sec>" * _DEEP + "<p>x</p>" + "</sec>" * _DEEP),
    "deeply_nested_abstract": _jats(
        "", front="<abstract>" + "<sec>" * _DEEP + "<p>y</p>" + "</sec>" * _DEEP + "</abstract>"
    ),
    "deeply_nested_sub_articles": _jats("", extra="<sub-article>" * _DEEP + "</sub-article>" * _DEEP),
    "front_matter_oddities": _jats(
        "",
        front="<article-id pub-id-type='pmc'>abc</article-id><article-id/><title-group><subtitle>s</subtitle>"
        "</title-group><contrib-group><contrib><xref ref-type='aff' rid='nope'/></contrib><contrib>"
        "<collab><contrib-group><contrib><name><surname>M</surname></name></contrib></contrib-group></collab>"
        "</contrib><contrib contrib-type='author'><name-alternatives/></contrib><aff id='a1'/><aff/></contrib-group>"
        "<pub-date iso-8601-date='2020-99'><year>20</year><month>Smarch</month><day>0</day></pub-date>"
        "<pub-date pub-type='epub'><year>2021</year><month>²</month><day>①</day></pub-date>"
        "<history><date/><date date-type='received'><year>9999999999</year></date></history>"
        "<permissions><license><license-p/></license><license xlink:href='http://creativecommons.org/'/>"
        "</permissions><abstract abstract-type='teaser'><p>t</p></abstract><abstract><sec/><title/></abstract>"
        "<kwd-group><kwd/><compound-kwd><compound-kwd-part>c</compound-kwd-part></compound-kwd></kwd-group>",
    ),
    "back_matter_oddities": _jats(
        "<p>x</p>",
        back="<back><ref-list><ref/><ref><mixed-citation/></ref><ref><citation-alternatives/></ref>"
        "<ref><element-citation><person-group><etal/><name/><collab/></person-group><year>n/a</year>"
        "<pub-id/></element-citation></ref></ref-list><app-group><app/></app-group><fn-group><fn/></fn-group>"
        "<glossary><def-list><def-item><term/></def-item></def-list></glossary><ack/><notes><sec/></notes></back>",
        extra="<floats-group><fig><caption><title/></caption></fig><supplementary-material/></floats-group>",
    ),
    "block_oddities": _jats(
        "<p><disp-formula><label>(1)</label></disp-formula><disp-formula><tex-math>$$</tex-math></disp-formula>"
        "<list list-type='roman-lower'><list-item/><list-item><p/></list-item></list><disp-quote/><preformat/>"
        "<code>a\nb</code><statement/><verse-group/><speech/><fig-group/><media/></p><p><sup><xref "
        "ref-type='bibr'/></sup><inline-formula/><mml:math alttext='alt'/><related-article/></p>"
    ),
}


@pytest.mark.parametrize("name", sorted(_JATS_EDGES))
def test_jats_edge_documents(name: str) -> None:
    for flavor in range(4):
        check_jats(_JATS_EDGES[name], flavor)


def test_jats_edge_semantics() -> None:
    (art,) = read_jats(_JATS_EDGES["rowspan_overflowing_grid"])
    (table,) = art.tables
    assert len(table.rows) == 4 and all(len(r) == len(table.rows[0]) for r in table.rows)
    (art,) = read_jats(_JATS_EDGES["bad_spans"])
    assert art.tables[0].rows[0][:3] == ["a", "b", "c"]  # junk spans read as 1
    (art,) = read_jats(_JATS_EDGES["nested_table_wrap_group"])
    assert len(art.tables) == 2
    (art,) = read_jats(_JATS_EDGES["sub_article_in_sub_article"])
    assert [s.id for s in art.subArticles][:2] == ["s1", "s2"]
    assert read_jats(_JATS_EDGES["empty_articleset"]) == []
    (art,) = read_jats(_JATS_EDGES["deeply_nested_sections"])
    assert "x" in "".join(s.text for s in art.sections)


# ---------------------------------------------------------------------------------------------
# hand-written edge documents: E-utilities (eSummary/eSearch/eLink DTDs)


def _nested_items(depth: int) -> str:
    inner = "<Item Name='leaf' Type='String'>v</Item>"
    for i in range(depth):
        kind = ("List", "Structure")[i % 2]
        inner = f"<Item Name='L{i}' Type='{kind}'>{inner}{inner if i < 3 else ''}</Item>"
    return inner


_ELINK_ERROR_AND_LINKS = (
    b"<eLinkResult><LinkSet><DbFrom>pubmed</DbFrom><IdList><Id>1</Id></IdList><LinkSetDb><DbTo>pubmed</DbTo>"
    b"<LinkName>pubmed_pubmed</LinkName><Link><Id>2</Id></Link></LinkSetDb><ERROR>Some ids failed</ERROR>"
    b"</LinkSet></eLinkResult>"
)
_EUTILS_EDGES: list[tuple[str, bytes]] = [
    ("esummary", f"<eSummaryResult><DocSum><Id>1</Id>{_nested_items(60)}</DocSum></eSummaryResult>".encode()),
    ("esummary", f"<eSummaryResult><DocSum><Id>1</Id>{_nested_items(_DEEP)}</DocSum></eSummaryResult>".encode()),
    (
        "esummary",
        b"<eSummaryResult><DocumentSummarySet><DocumentSummary uid='1'>" + b"<A><b>1</b>" * _DEEP + b"x"
        + b"</A>" * _DEEP + b"</DocumentSummary></DocumentSummarySet></eSummaryResult>",
    ),
    (
        "esummary",
        b"<eSummaryResult><DocSum><Item/><Item Type='Integer'>n/a</Item><Item Name='AuthorList' Type='List'>"
        b"<Item Name='Author' Type='String'/></Item><Item Name='ArticleIds' Type='List'/><Item Name='PubDate' "
        b"Type='Date'><Item Name='x' Type='String'>y</Item></Item></DocSum><DocSum/></eSummaryResult>",
    ),
    (
        "esummary",
        b"<eSummaryResult><DocumentSummarySet status='OK'><DocumentSummary/><DocumentSummary uid=''>"
        b"<error/><Authors/><ArticleIds><ArticleId><IdType/></ArticleId></ArticleIds><PubType><flag/></PubType>"
        b"</DocumentSummary><DbBuild/></DocumentSummarySet><DocumentSummarySet/></eSummaryResult>",
    ),
    ("esearch", b"<eSearchResult><Count>12</Count><RetMax>0</RetMax></eSearchResult>"),
    ("esearch", b"<eSearchResult><Count>n/a</Count><IdList><Id>1</Id></IdList></eSearchResult>"),
    ("esearch", b"<eSearchResult><IdList><Id>1</Id></IdList></eSearchResult>"),
    (
        "esearch",
        b"<eSearchResult><Count>1</Count><IdList><Id/><Id>  </Id></IdList><TranslationSet><Translation/>"
        b"</TranslationSet><TranslationStack><TermSet/><OP/><TermSet><Count>x</Count><Explode>maybe</Explode>"
        b"</TermSet></TranslationStack><ErrorList/><WarningList><OutputMessage/></WarningList></eSearchResult>",
    ),
    ("elink", _ELINK_ERROR_AND_LINKS),
    (
        "elink",
        b"<eLinkResult><LinkSet><LinkSetDb><Link/><Link><Id>3</Id><Score>x</Score></Link><ERROR/></LinkSetDb>"
        b"<LinkSetDbHistory/><IdUrlList><IdUrlSet><ObjUrl><Provider/></ObjUrl></IdUrlSet><IdUrlSet/>"
        b"</IdUrlList><IdCheckList><Id/><IdLinkSet/><IdLinkSet><Id HasNeighbor='maybe'/><LinkInfo "
        b"HasLinks='N'/></IdLinkSet></IdCheckList></LinkSet><LinkSet/></eLinkResult>",
    ),
    ("epost", b"<ePostResult><QueryKey/><WebEnv/></ePostResult>"),
    ("epost", b"<ePostResult><InvalidIdList><Id>x</Id></InvalidIdList><ERROR/></ePostResult>"),
    ("espell", b"<eSpellResult><SpelledQuery><Replaced/><Original> x </Original><Other/></SpelledQuery></eSpellResult>"),
    ("egquery", b"<Result><eGQueryResult><ResultItem/><ResultItem><Count>9</Count></ResultItem></eGQueryResult></Result>"),
    ("egquery", b"<Result><Term>t</Term></Result>"),
    ("idconv", b"<pmcids status='ok'><record/><record pmcid='abc' live='maybe'><versions><version/></versions></record></pmcids>"),
    ("idconv", b"<pmcids status='error'/>"),
    ("einfo", b"<eInfoResult><DbList/></eInfoResult>"),
    ("einfo", b"<eInfoResult><DbInfo><FieldList><Field/></FieldList><LinkList><Link/></LinkList><Count>x</Count></DbInfo></eInfoResult>"),
    ("einfo", b"<eInfoResult/>"),
    ("mesh", b"<eSummaryResult><DocumentSummarySet><DocumentSummary uid='6'><DS_IdxLinks/></DocumentSummary></DocumentSummarySet></eSummaryResult>"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "body"), _EUTILS_EDGES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(_EUTILS_EDGES)]
)
def test_eutils_edge_documents(kind: str, body: bytes) -> None:
    check(kind, body)


def test_eutils_edge_semantics() -> None:
    r = parse_esearch(b"<eSearchResult><Count>12</Count><RetMax>0</RetMax></eSearchResult>", json_mode=False)
    assert r.count == 12 and r.ids == []
    with pytest.raises(MedlitError) as info:
        parse_esearch(b"<eSearchResult><IdList><Id>1</Id></IdList></eSearchResult>", json_mode=False)
    assert info.value.reason == "ncbi_invalid_response"
    # A LinkSet ERROR that came with links is kept on that set; the links are not lost.
    (ls,) = parse_elink(_ELINK_ERROR_AND_LINKS).link_sets
    assert ls.error == "Some ids failed" and [k.id for k in ls.link_dbs[0].links] == ["2"]
    # Only an answer made of errors alone fails the call.
    with pytest.raises(MedlitError):
        parse_elink(b"<eLinkResult><LinkSet><DbFrom>pubmed</DbFrom><ERROR>x</ERROR></LinkSet></eLinkResult>")
    deep = parse_esummary(_EUTILS_EDGES[0][1], json_mode=False)
    assert deep.docs[0].uid == "1" and "L59" in deep.docs[0].fields
    r = parse_esearch(
        json.dumps({"esearchresult": {"count": "3", "idlist": "5", "errorlist": []}}), json_mode=True
    )
    assert r.count == 3 and r.ids == ["5"]


# ---------------------------------------------------------------------------------------------
# exhaustive single-mutation sweeps over the small documents (every slot, every replacement)

_JSON_REPLACEMENTS: list[Any] = [None, 3, "a,b", "", [], {}, [None], {"value": 1}]
_DELETE = object()


def _json_sweep_variants(base: Any) -> list[tuple[str, Any]]:
    variants = []
    for index in range(len(_json_slots(base))):
        for replacement in [_DELETE, *_JSON_REPLACEMENTS]:
            doc = copy.deepcopy(base)
            container, key = _json_slots(doc)[index]
            if replacement is _DELETE:
                del container[key]
            else:
                container[key] = copy.deepcopy(replacement)
            variants.append((f"{key}={'<deleted>' if replacement is _DELETE else replacement!r}", doc))
    return variants


def _small_json_docs() -> list[tuple[str, str, Any]]:
    docs: list[tuple[str, str, Any]] = [(k, k, v) for k, v in _HAND_JSON.items()]
    for rel, path in _FILES:
        if path.suffix == ".json" and path.stat().st_size < 8_000:
            text = path.read_text(encoding="utf-8", errors="replace").lstrip("\ufeff \t\r\n")
            text = "\n".join(line for line in text.splitlines() if not line.startswith("//"))
            docs.append((rel, _kind(rel) or "", json.loads(text)))
    return docs


@pytest.mark.parametrize(
    ("name", "kind", "base"), _small_json_docs(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_json_single_slot_sweep(name: str, kind: str, base: Any) -> None:
    failures = []
    for i, (what, doc) in enumerate(_json_sweep_variants(base)):
        try:
            check(kind, json.dumps(doc).encode(), True, i)
        except Exception:
            failures.append(f"{name} with {what}:\n{traceback.format_exc(limit=-4)}")
    assert not failures, _report(failures)


_XML_SWEEP_OPS = ("delete", "empty", "text:²", "text:12a", "text:long", "duplicate", "attrs", "unknown_child")


def _xml_sweep_variants(base: etree._Element) -> list[tuple[str, bytes]]:
    variants = []
    count = len(_elements(base))
    for index in range(count):
        for op in _XML_SWEEP_OPS:
            root = copy.deepcopy(base)
            el = _elements(root)[index]
            parent = el.getparent()
            if op == "delete" and parent is not None:
                parent.remove(el)
            elif op == "empty":
                el.text = None
                for child in list(el):
                    el.remove(child)
            elif op.startswith("text:"):
                el.text = {"²": "²", "12a": "12a", "long": "9" * 5000}[op[5:]]
            elif op == "duplicate" and parent is not None:
                parent.insert(parent.index(el) + 1, copy.deepcopy(el))
            elif op == "attrs":
                el.attrib.clear()
            elif op == "unknown_child":
                el.insert(0, _fragment("<zz:x xmlns:zz='urn:zz'>?</zz:x>"))
            else:
                continue
            variants.append((f"{op} on <{etree.QName(el).localname}> #{index}", etree.tostring(root)))
    return variants


# Small E-utility answers, plus one journal record and one Bookshelf record (bounded for time).
_SWEEP_PUBMED = ("pubmed_38962805_published_erratum2.xml", "pubmed_26468569_book_whole.xml")
_SWEEP_XML = [
    (rel, path)
    for rel, path in _FILES
    if path.suffix == ".xml"
    and (path.name in _SWEEP_PUBMED or (_kind(rel) not in ("pubmed", "jats") and path.stat().st_size < 3_000))
]


@pytest.mark.parametrize(("rel", "path"), _SWEEP_XML, ids=[rel for rel, _ in _SWEEP_XML])
def test_xml_single_element_sweep(rel: str, path: Path) -> None:
    base = _base_tree(path.read_bytes())
    if base is None:
        pytest.skip("malformed recording: covered by the corpus mutation test")
    kind = _kind(rel)
    assert kind is not None
    failures = []
    for i, (what, variant) in enumerate(_xml_sweep_variants(base)):
        try:
            check(kind, variant, False, i)
        except Exception:
            failures.append(f"{rel} after {what}:\n{traceback.format_exc(limit=-4)}")
    assert not failures, _report(failures)
