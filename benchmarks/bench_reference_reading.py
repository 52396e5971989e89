"""Reading published references: per-field accuracy of the reference reader on the reference
lists journals printed (issue 31).

    python benchmarks/bench_reference_reading.py [--corpus ../shared/corpus] [--failures FIELD]

Every ``mixed-citation`` in the JATS articles of the shared corpus whose publisher tagged its
title (``article-title``), year and journal (``source``) is rendered as the plain text a reader
sees (the element's text with a space where two tagged pieces would otherwise run together) and
read by ``parse_reference``. Each field the publisher tagged is scored against the tag after a
fair fold (case, diacritics, punctuation, dashes, whitespace): title, journal (the reader must
give the journal as printed: an abbreviation counts only when the tagged ``source`` is that
abbreviation), first author's surname (or the group author), year, volume, first page (``fpage``
or ``elocation-id``). The same article reached through two files counts once.

Reported per article (journal) and overall; "leave-one-journal-out" is the mean over journals of
each journal's figure with every journal weighted alike: the reader is rules, not trained on these
lists, so a journal's own figure is already its unseen-journal figure, and the mean keeps one long
list (Diabetes Care's 286) from standing for all styles. ``--failures title`` prints the misses.

Held out from the reader's trained token model and scored the same way, "before" (the rules alone,
``parse_free_text``) beside "after" (``parse_reference``: the rules checked by the model), when the
public snapshots are on this machine (``--mirrors``, the ``fetch`` tool's folder; read at run time,
never committed): unseen house styles (the tagged references of the PLOS articles held out of
training, rendered by citeproc-py in the CSL journal styles held out of training: one style and one
article in five, ``reference_data.held_out``), and AnyStyle's hand-labelled journal articles
(``inukshuk/anystyle`` gold.xml + core.xml: every field's styles, and the biomedical subset whose
journal names a medical or life-science word). AnyStyle's labels carry the printed punctuation
(folded away) and the first author as printed; a reading is right when it is that name's family
part.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
import unicodedata
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from medlit.plugins.references.parse import parse_free_text, parse_reference
from medlit.plugins.references.stated import StatedReference

ROOT = Path(__file__).resolve().parents[1]
FIELDS = ("title", "journal", "first_author", "year", "volume", "first_page")


@dataclass
class Tagged:
    article: str  # the citing article's journal and id
    text: str
    tags: dict[str, str]
    lenient_author: bool = False  # the first author tagged as printed ("X. Zhou", "Bergk V")


def _local(el: etree._Element) -> str:
    tag = el.tag
    return etree.QName(tag).localname if isinstance(tag, str) else ""


_LABELLED = {"doi": "doi: ", "pmid": "PMID: ", "pmcid": "PMCID: "}


def render(el: etree._Element) -> str:
    """The citation as a reader sees it, as the journal's page prints it: names in a person-group
    separated by commas when the XML leaves them bare (``<name>..</name><name>..</name>``), a
    space between two tagged pieces that would otherwise touch (``epidemic?</article-title>
    <source>``), an identifier with its label when the XML gives only the number."""
    out: list[str] = []

    def add(s: str | None) -> None:
        if not s:
            return
        if out and out[-1] and (out[-1][-1].isalnum() or out[-1][-1] in "?!.") and s[0].isalnum():
            out.append(" ")
        out.append(s)

    def walk(node: etree._Element) -> None:
        name = _local(node)
        if name == "etal":
            add(" et al.")
            return
        if name == "pub-id":
            label = _LABELLED.get(str(node.get("pub-id-type")), "")
            before = "".join(out).rstrip().lower()
            if label and not before.endswith((label.strip().lower(), "doi", "pmid")):
                add(" " + label)
        add(node.text)
        previous_was_name = False
        for child in node:
            if not isinstance(child.tag, str):
                add(child.tail)
                continue
            is_name = _local(child) in ("name", "string-name")
            if is_name and previous_was_name:
                add(", ")
            walk(child)
            if _local(child) in ("person-group", "collab") and not (child.tail or "").strip():
                add(". ")  # a group author run into the title: the printed page has a stop
            add(child.tail)
            previous_was_name = is_name and not (child.tail or "").strip()

    walk(el)
    text = re.sub(r"\s+", " ", "".join(out))
    text = re.sub(r"\s+([,.;:)])", r"\1", text)
    return re.sub(r"([.,:;])(?:\s*[.])+", r"\1", text).strip()


def unpunctuated(mc: etree._Element) -> bool:
    """Tagged fields with nothing but spaces between them: a record in a mixed-citation's clothes
    (older BMC and BJC deposits), not text any reader is shown."""
    between = (mc.text or "") + "".join(c.tail or "" for c in mc)
    return not re.sub(r"\s", "", between)


def _first(el: etree._Element, name: str) -> etree._Element | None:
    found = el.xpath(f".//*[local-name()='{name}']")
    return found[0] if found else None


def _text(el: etree._Element | None) -> str:
    return re.sub(r"\s+", " ", "".join(el.itertext())).strip() if el is not None else ""


def tagged_fields(mc: etree._Element) -> dict[str, str] | None:
    title, year, source = (_text(_first(mc, n)) for n in ("article-title", "year", "source"))
    if not (title and year and source):
        return None
    tags = {"title": title, "journal": source, "year": year}
    names = mc.xpath(".//*[local-name()='name' or local-name()='string-name']")
    first_name = names[0] if names else None
    collab = _first(mc, "collab")
    first_surname = _text(_first(first_name, "surname")) if first_name is not None else ""
    if first_name is not None and (collab is None or _precedes(first_name, collab)):
        tags["first_author"] = first_surname
    elif collab is not None:
        tags["first_author"] = _text(collab)
    for name, key in (("volume", "volume"), ("fpage", "first_page"), ("elocation-id", "first_page")):
        if key not in tags and (v := _text(_first(mc, name))):
            tags[key] = v
    return tags


def _precedes(a: etree._Element, b: etree._Element) -> bool:
    for el in a.getroottree().iter():
        if el is a:
            return True
        if el is b:
            return False
    return False


def find_citations(corpus: Path) -> list[Tagged]:
    out: list[Tagged] = []
    seen_articles: set[str] = set()
    for path in sorted(corpus.rglob("*")):
        if path.suffix not in (".xml", ".nxml") or b"mixed-citation" not in path.read_bytes():
            continue
        tree = etree.parse(str(path), etree.XMLParser(resolve_entities=False, no_network=True, recover=True))
        for article in tree.xpath("//*[local-name()='article']") or [tree.getroot()]:
            journal = _text(_first(article, "journal-title")) or path.stem
            ids = article.xpath(".//*[local-name()='article-meta']/*[local-name()='article-id']")
            art_id = _text(ids[0]) if ids else path.stem
            key = f"{journal} ({art_id})"
            if key in seen_articles:
                continue
            seen_articles.add(key)
            for mc in article.xpath(".//*[local-name()='mixed-citation']"):
                if (tags := tagged_fields(mc)) is not None and not unpunctuated(mc):
                    out.append(Tagged(key, render(mc), tags))
    return out


def fold(s: str | None) -> str:
    s = unicodedata.normalize("NFKD", s or "")
    s = "".join(c for c in s if not unicodedata.combining(c)).lower()
    return " ".join(re.sub(r"[\W_]+", " ", s).split())


def _family(name: str) -> str:
    words = name.split()
    if len(words) > 1 and re.fullmatch(r"[A-Z]{1,4}|(?:[A-Z]\.)+", words[-1]):
        words = words[:-1]
    return " ".join(words)


def read_value(ref: StatedReference, f: str) -> str:
    if f == "first_author":
        return _family(ref.authors[0]) if ref.authors else ""
    value = getattr(ref, f)
    return "" if value is None else str(value)


def right_author(read: str, tagged: str) -> bool:
    """The family part of a first author tagged as printed, given names before or after."""
    r, g = fold(read), re.sub(r"^(?:[a-z] )+", "", fold(_family(tagged)))
    return bool(r) and (r == g or g.endswith(" " + r) or g.startswith(r + " "))


def right(f: str, read: str, tagged: str) -> bool:
    if f == "year":
        m = re.search(r"\d{4}", tagged)
        return bool(m) and read == m.group(0)
    if f == "first_page":
        return fold(read).lstrip("0") == fold(tagged).lstrip("0") and bool(read)
    return bool(read) and fold(read) == fold(tagged)


def score(
    cits: list[Tagged],
    failures: str | None = None,
    reader: Callable[[str], StatedReference] = parse_reference,
) -> dict[str, dict[str, tuple[int, int]]]:
    """Per article: field -> (right, tagged)."""
    table: dict[str, dict[str, list[int]]] = defaultdict(lambda: {f: [0, 0] for f in FIELDS})
    for c in cits:
        ref = reader(c.text)
        for f in FIELDS:
            if f not in c.tags:
                continue
            if f == "first_author" and c.lenient_author:
                ok = right_author(read_value(ref, f), c.tags[f])
            else:
                ok = right(f, read_value(ref, f), c.tags[f])
            table[c.article][f][0] += ok
            table[c.article][f][1] += 1
            if failures == f and not ok:
                print(f"- {c.text}\n    tagged {c.tags[f]!r}  read {read_value(ref, f)!r}", file=sys.stderr)
    return {a: {f: (v[0], v[1]) for f, v in row.items()} for a, row in table.items()}


def pct(r: int, n: int) -> str:
    return f"{100 * r / n:.1f}%" if n else "-"


def totals(table: dict[str, dict[str, tuple[int, int]]]) -> dict[str, tuple[int, int]]:
    out = {}
    for f in FIELDS:
        out[f] = (sum(row[f][0] for row in table.values()), sum(row[f][1] for row in table.values()))
    return out


def held_out_sets(mirrors: Path) -> dict[str, list[Tagged]]:
    """The public labelled sets the token model never saw, when their snapshots are here."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import reference_data as rd

    sets: dict[str, list[Tagged]] = {}
    if rd.git_dir(rd.SOURCES["csl"], mirrors).exists() and rd.git_dir(rd.SOURCES["plos"], mirrors).exists():
        unseen = rd.load("csl_heldout", mirrors)
        sets["unseen house styles (CSL styles and PLOS articles held out of training)"] = [
            Tagged(e.origin, e.text, e.gold) for e in unseen
        ]
    if rd.git_dir(rd.SOURCES["anystyle"], mirrors).exists():
        anystyle = [
            Tagged(e.origin, e.text, e.gold, lenient_author=True) for e in rd.load("anystyle", mirrors)
        ]
        sets["AnyStyle journal articles, all fields"] = anystyle
        sets["AnyStyle journal articles, biomedical journals"] = [
            t for t in anystyle if rd.BIOMEDICAL.search(t.tags.get("journal", ""))
        ]
    return sets


def main() -> None:
    ap = argparse.ArgumentParser()
    default = os.environ.get("MEDLIT_CORPUS") or str(ROOT.parent / "shared" / "corpus")
    ap.add_argument("--corpus", default=default)
    ap.add_argument("--mirrors", default="/work/.mirror", help="the fetch tool's snapshots (held-out sets)")
    ap.add_argument("--failures", choices=FIELDS)
    args = ap.parse_args()
    cits = find_citations(Path(args.corpus))
    t0 = time.perf_counter()
    parse_reference(cits[0].text)
    first_call = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    for c in cits[:100]:
        parse_reference(c.text)
    per100 = (time.perf_counter() - t0) * 1000 * 100 / max(1, min(100, len(cits)))
    t0 = time.perf_counter()
    for c in cits[:100]:
        parse_free_text(c.text)
    rules100 = (time.perf_counter() - t0) * 1000 * 100 / max(1, min(100, len(cits)))
    table = score(cits, args.failures)
    print(
        f"{len(cits)} tagged references from {len(table)} articles; reading 100 takes {per100:.0f} ms "
        f"(the rules alone {rules100:.0f} ms; the first call reads the model: {first_call:.0f} ms)\n"
    )
    print("| article | refs | " + " | ".join(FIELDS) + " |")
    print("|---|---:|" + "---:|" * len(FIELDS))
    for article, row in sorted(table.items()):
        n = max(v[1] for v in row.values())
        print(f"| {article} | {n} | " + " | ".join(pct(*row[f]) for f in FIELDS) + " |")
    overall = totals(table)
    print(f"| **overall** | {len(cits)} | " + " | ".join(f"**{pct(*overall[f])}**" for f in FIELDS) + " |")
    macro = []
    for f in FIELDS:
        shares = [row[f][0] / row[f][1] for row in table.values() if row[f][1]]
        macro.append(f"{100 * sum(shares) / len(shares):.1f}%" if shares else "-")
    print("| **mean of journals** | | " + " | ".join(macro) + " |")
    worst = []
    for f in FIELDS:
        shares = [row[f][0] / row[f][1] for row in table.values() if row[f][1]]
        worst.append(f"{100 * min(shares):.1f}%" if shares else "-")
    print("| worst journal | | " + " | ".join(worst) + " |")
    sets = {"corpus (published lists, JATS)": cits, **held_out_sets(Path(args.mirrors))}
    print("\nBefore (the rules alone) -> after (the rules checked by the token model):\n")
    print("| set | refs | " + " | ".join(FIELDS) + " |")
    print("|---|---:|" + "---:|" * len(FIELDS))
    for name, items in sets.items():
        before = totals(score(items, reader=parse_free_text))
        after = totals(score(items))
        cells = [f"{pct(*before[f])} -> **{pct(*after[f])}**" for f in FIELDS]
        print(f"| {name} | {len(items)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
