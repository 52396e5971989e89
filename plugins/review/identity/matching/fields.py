"""Field normalisers: each bibliographic field in the form two databases' copies of one work agree
on (a title's markup and translation brackets, a name's accents and particles, a journal's
abbreviation, a page range written short).
"""

from __future__ import annotations

import functools
import html
import re
import sys

from medlit.core.plugin import bibliography

# Greek letters as databases spell them out ("β-blocker" in one, "beta-blocker" in another).
_GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta",
    "η": "eta", "θ": "theta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu",
    "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma", "ς": "sigma", "τ": "tau", "υ": "upsilon",
    "φ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega", "µ": "mu",
}  # fmt: skip
_GREEK_RE = re.compile("|".join(_GREEK))
_MARKUP = re.compile(r"<[^>]{1,40}>")  # as the shared fold's
_NOT_WORD = re.compile(r"[\W_]+")
_BRACKETS = re.compile(r"\[([^\[\]]*)\]")
# A bracketed note about the record rather than part of its title: a language, an erratum or
# comment note, "[Review]", "[Abstract]" (MEDLINE and Embase append these).
_NOTE = re.compile(
    r"(?i)^\s*(?:\w+\s+)?(?:published\s+erratum|erratum|corrected|comment|see\s+comments?|"
    r"retracted|review|abstract|article\s+in|english\s+abstract|editorial|letter|"
    r"author'?s?\s+transl|notes?:|in\s+process|see\s+)"
)
_LANGUAGE = re.compile(
    r"(?i)^\s*(?:in\s+)?(?:chinese|japanese|german|french|spanish|italian|russian|portuguese|"
    r"polish|dutch|czech|korean|turkish|hungarian|danish|swedish|norwegian|finnish|croatian|"
    r"serbian|slovak|slovenian|greek|hebrew|persian|arabic|romanian|ukrainian|bulgarian|"
    r"lithuanian|estonian|latvian|icelandic|catalan|afrikaans|thai|vietnamese|english|"
    r"multiple\s+languages|non-?english)(?:\s+text|\s+language)?\s*$"
)


def plain(text: str | None) -> str:
    """Entities decoded and Greek letters spelled out, then the shared title fold (markup,
    accents, case, punctuation) with words kept apart."""
    if not text:
        return ""
    if "&" in text:
        text = html.unescape(html.unescape(text))
    if text.isascii():
        # The shared fold's result for ASCII text (nothing to decompose or transliterate),
        # without its per-character pass: normalising is most of a record's matching cost.
        return _NOT_WORD.sub(" ", _MARKUP.sub(" ", text).lower()).strip()
    return bibliography.fold(_GREEK_RE.sub(lambda m: " " + _GREEK[m.group(0)] + " ", text))


def titles(title: str | None) -> tuple[tuple[str, ...], str]:
    """The folded forms a title may be known by, the main one first (the title without its
    bracketed notes; a wholly bracketed, translated title's content; the original beside its
    bracketed English translation; Ovid's "English <ORIGINAL> ORIGINAL"), and the title before its
    subtitle ("" when it has none). Compacted (no spaces): word boundaries differ between
    databases ("Ecologically-oriented" / "Ecologically oriented")."""
    forms = _forms(title)
    out: list[str] = []
    for form in forms:
        folded = plain(form).replace(" ", "")
        if folded and folded not in out:
            out.append(folded)
    cut = ""
    head = re.split(r"[:?]\s|\.\s|\s[-\u2013\u2014]\s", forms[0] if forms else "", maxsplit=1)
    if len(head) == 2 and len(plain(head[0])) >= 20:
        cut = plain(head[0]).replace(" ", "")
    return tuple(out), cut


def title_words(title: str | None) -> tuple[str, ...]:
    """The main form's folded words, interned (a set's records share most of their words)."""
    forms = _forms(title)
    return tuple(sys.intern(w) for w in plain(forms[0]).split()) if forms else ()


# Ovid writes a title's original beside its English translation: "English. <ORIGINAL> ORIGINAL".
_ORIGINAL = re.compile(r"(?i)<\s*original\s*>")
# Quotes a CSV export left around the whole title ('"[Prevention of ...]"').
_QUOTES = " \t\"'\u201c\u201d\u2018\u2019\u00ab\u00bb"


@functools.lru_cache(maxsize=4096)  # normalize() asks twice for one title (forms, then words)
def _forms(title: str | None) -> tuple[str, ...]:
    if not title:
        return ()
    text, *originals = _ORIGINAL.split(html.unescape(title))
    text = _MARKUP.sub("", _uncorrected(text)).strip(_QUOTES)
    # A bracketed note cut off by a length limit ("... [Erratum appears in Am J"), unless the
    # bracket opened the title itself (a translated title cut short: "[Prevention of the ...").
    unclosed = re.sub(r"\[[^\]]*$", "", text)
    text = unclosed if plain(unclosed) else text.replace("[", " ")
    forms: list[str] = []
    inner = [m.group(1) for m in _BRACKETS.finditer(text)]
    outside = _BRACKETS.sub(" ", text)
    kept = [s for s in inner if not _NOTE.match(s) and not _LANGUAGE.match(s) and len(plain(s)) > 3]
    if plain(outside).replace(" ", ""):
        forms.append(outside)
        forms.extend(kept)
    else:  # "[Title translated into English]."
        forms.extend(kept or inner)
    forms.extend(o.strip(_QUOTES) for o in originals if plain(o))
    return tuple(forms)


def translated(title: str | None) -> bool:
    """Whether a title says it is a translation: wholly bracketed ("[Asthma: a review]", MEDLINE's
    mark of a title translated into English), an original beside its bracketed translation, a
    language note ("[Spanish]"), or Ovid's ``<ORIGINAL>``."""
    if not title:
        return False
    text = html.unescape(title)
    if _ORIGINAL.search(text):
        return True
    inner = [m.group(1) for m in _BRACKETS.finditer(text)]
    if any(_LANGUAGE.match(s) for s in inner):
        return True
    core = _MARKUP.sub("", text).strip(_QUOTES).rstrip(". ")
    return core.startswith("[") or any(not _NOTE.match(s) and len(plain(s)) > 3 for s in inner)


# Function words that tell a title's language; a title in one language uses its own.
_TONGUES = {
    "en": frozenset({"the", "of", "and", "in", "for", "with", "on", "to", "from", "by", "an", "after", "among"}),
    "de": frozenset({"der", "die", "das", "und", "fur", "mit", "von", "zum", "zur", "des", "im", "bei", "ein", "eine", "als", "uber", "auf"}),
    "fr": frozenset({"le", "la", "les", "et", "du", "des", "pour", "une", "dans", "chez", "avec", "sur", "au", "aux"}),
    "es": frozenset({"el", "los", "las", "y", "del", "para", "una", "en", "con", "por", "sobre"}),
    "it": frozenset({"il", "della", "delle", "dei", "degli", "nella", "nel", "con", "per", "una", "e", "gli"}),
    "pt": frozenset({"os", "do", "da", "dos", "das", "em", "com", "para", "uma", "no", "na"}),
    "nl": frozenset({"het", "een", "van", "en", "voor", "bij", "met", "op", "naar"}),
}  # fmt: skip


# Each function word's languages (a word may be several languages' own: "en", "con", "per").
_TONGUE_OF: dict[str, tuple[str, ...]] = {}
for _code, _vocab in _TONGUES.items():
    for _word in _vocab:
        _TONGUE_OF[_word] = (*_TONGUE_OF.get(_word, ()), _code)


def tongue(title: str | None, words: tuple[str, ...]) -> str:
    """The language ``title`` is written in, by its function words (``words``, the main form's,
    :func:`title_words`): "en", "de", ... ("" when they do not tell), or "script" for a title
    mostly in a non-Latin script."""
    if not title or not words:
        return ""
    if not title.isascii():
        letters = [c for c in title if c.isalpha()]
        if sum(1 for c in letters if ord(c) > 0x24F) > len(letters) / 2:
            return "script"
    counts: dict[str, int] = {}
    for word in words:
        for code in _TONGUE_OF.get(word, ()):
            counts[code] = counts.get(code, 0) + 1
    if not counts:
        return ""
    best = max(counts.values())
    found = [code for code, n in counts.items() if n == best]
    return found[0] if len(found) == 1 else ""


_NOTICE = re.compile(
    r"(?i)^\W*(?:erratum|errata|corrigendum|corrigenda|correction\b(?!\s+of\b)|"
    r"retraction|notice\s+of\s+retraction|retracted|withdrawn|expression\s+of\s+concern|"
    r"author\s+correction|publisher\s+correction|editorial\s+expression)"
)
_NOTICE_TYPES = frozenset(
    {"erratum", "published erratum", "retraction of publication", "retraction notice", "correction"}
)


# Web of Science titles a correction after its article, then where that article was:
# "Eculizumab for atypical hemolytic-uremic syndrome (vol 360, pg 542, 2009)".
_CORRECTS = re.compile(r"(?i)\(\s*vol\.?\s*\d+\s*,\s*pg?\.?\s*\w+\s*,\s*\d{4}\s*\)\W*$")
# Embase's form of the same: "Eculizumab for ... (New England Journal of Medicine (2009) 360 (542-544))".
_CORRECTS_EMBASE = re.compile(
    r"\(\s*[^()]{3,200}\(\s*\d{4}\s*\)\s*\d+\s*(?:\(\s*\w+\s*\)\s*)?\(\s*[\w\s-]{1,20}\)\s*\)\W*$"
)


def _uncorrected(title: str) -> str:
    """A correction's title without the citation of the article it corrects: two databases'
    records of one erratum cite that article differently."""
    title = _CORRECTS_CUT.sub("", _CORRECTS_EMBASE.sub("", _CORRECTS.sub("", title)))
    return _NOTICE_PREFIX.sub("", title)


# A notice's label before the title it corrects ("Erratum: ", "Erratum to - "): one database
# writes it, another not (the record stays a notice: :func:`is_notice` reads the title as given).
_NOTICE_PREFIX = re.compile(
    r"(?i)^\W*(?:erratum|errata|corrigendum|correction|retraction(?:\s+note)?|retracted|"
    r"expression\s+of\s+concern)(?:\s+(?:to|of|for|on))?\s*[:\u2013\u2014-]\s*"
)


# The same cut off by a length limit: "... syndrome (The Journal of Pediatrics (M".
_CORRECTS_CUT = re.compile(r"\s*\([^()]{3,200}\([^()]*$")


def is_notice(title: str | None, publication_types: list[str] | tuple[str, ...]) -> bool:
    """An erratum, correction, retraction or expression of concern: a record about another
    article, which shares that article's title, authors and often its journal."""
    if any(t.strip().lower() in _NOTICE_TYPES for t in publication_types):
        return True
    if not title:
        return False
    text = html.unescape(title)
    return bool(_NOTICE.match(text) or _CORRECTS.search(text) or _CORRECTS_EMBASE.search(text))


_ABSTRACT_TYPES = frozenset({"congress", "conference abstract", "meeting abstract", "conference paper"})
# In a container's name, volume or issue: where a meeting's abstracts are printed, or an
# abstracting journal ("Dissertation Abstracts International": a thesis's abstract is not the
# thesis; the ASySD stroke set keeps one such pair apart). "Proceedings" alone is not one (Proc
# Natl Acad Sci USA).
_MEETING = re.compile(r"(?i)\b(?:abstracts|congress|meeting|conference|symposium|annual\s+scientific)\b")


def is_meeting(kind: str | None, publication_types: list[str] | tuple[str, ...], *where: str | None) -> bool:
    """A conference contribution (an abstract in a journal's supplement, a proceedings paper):
    never the same record as the journal paper that follows it."""
    if kind == "conference" or any(t.strip().lower() in _ABSTRACT_TYPES for t in publication_types):
        return True
    return any(w and _MEETING.search(w) for w in where)


def is_supplement(*where: str | None) -> bool:
    """A supplement's volume, issue or pages ("Suppl 2", "s2", "S42")."""
    return any(w and re.search(r"(?i)(?:\bsup|^\s*s\s*\d)", str(w)) for w in where)


_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10}
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "first": 1, "second": 2, "third": 3}
_PART = re.compile(r"\b(?:part|pt|phase|paper|study|report|series|section|chapter)\s+(\w+)\b")


def parts(title: str | None) -> tuple[str, ...]:
    """The numbers that set a work apart from its siblings in a series: "Part 2", "Phase III",
    a trailing "II", and every number in the title ("12-month results" vs "24-month results")."""
    title = _uncorrected(html.unescape(title)) if title else title
    folded = plain(title)
    if not folded:
        return ()
    found: set[str] = set()
    for word in _PART.findall(folded):
        value = _ROMAN.get(word) or _WORDS.get(word) or (int(word) if word.isdigit() else None)
        if value is not None:
            found.add(f"part{value}")
    bare = _BRACKETS.sub(" ", re.sub(r"\[[^\]]*$", "", html.unescape(title or "")))
    words = bare.split()
    if words:
        last = words[-1].strip(".:;,()").lower()
        # "I" closing a title is a numeral ("Type I"), but only written as a capital
        if last in _ROMAN and (last != "i" or words[-1].strip(".") == "I"):
            found.add(f"part{_ROMAN[last]}")
    # "10 000" and "10000" are one number
    found.update(re.findall(r"\d+", re.sub(r"(?<=\d) (?=\d{3}\b)", "", plain(bare))))
    return tuple(sorted(found))


_PARTICLES = frozenset(
    {"van", "von", "der", "den", "de", "del", "della", "di", "da", "du", "des", "la", "le", "dos", "das", "do",
     "ten", "ter", "vander", "al", "el", "bin", "ibn", "st", "mac"}
)  # fmt: skip


_NULL = re.compile(r"(?i)\b(?:null|none|nan)\b")  # export artefacts for an empty name part


def person(name: str) -> tuple[str, str]:
    """``(family, initials)`` folded: particles dropped and hyphens closed ("van der Berg, Sören"
    -> ``("berg", "s")``, "Sberro-Soussan, R." -> ``("sberrosoussan", "r")``); a name without a
    comma ("Smith JA", a group's name) read as family then initials."""
    if "," in name:
        family, given = name.split(",", 1)
    else:
        bits = name.split()
        if len(bits) > 1 and bits[-1].isupper() and len(bits[-1]) <= 3 and bits[-1].isalpha():
            family, given = " ".join(bits[:-1]), bits[-1]
            given = " ".join(given)  # "JA" -> "J A"
        else:
            family, given = name, ""
    family, given = _NULL.sub(" ", family), _NULL.sub(" ", given)
    words = [w for w in plain(family).split() if w not in _PARTICLES] or plain(family).split()
    given_words = plain(given).split()
    initials = "".join(w[0] for w in given_words if w not in _PARTICLES)
    return "".join(words), initials


AUTHORS_KEPT = 10  # enough to recognise a list; a 300-author consortium paper costs no more


def people(authors: list[str] | tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """The first authors' ``(family, initials)``, "et al." and empty names dropped. Names are
    interned: a set of 50,000 records repeats its families and initials many times over."""
    out: list[tuple[str, str]] = []
    for name in authors:
        if len(out) == AUTHORS_KEPT:
            break
        if not name or re.fullmatch(r"(?i)\s*(?:et\.?\s*al\.?|others|and\s+others|anonymous)\s*", name):
            continue
        family, initials = person(name)
        if family:
            out.append((sys.intern(family), sys.intern(initials)))
    return tuple(out)


def split_authors(text: str) -> list[str]:
    """BibTeX's ``"A, B. and C, D."`` (or ``"A, B.; C, D."``) into names (the benchmark's and an
    import's author field)."""
    return [n.strip() for n in re.split(r"\s+and\s+|\s*;\s*", text) if n.strip()]


_JOURNAL_STOP = frozenset(
    {"the", "of", "and", "for", "in", "on", "a", "an", "de", "la", "le", "der", "und", "et", "fur", "y", "e", "i", "d", "l",
     "du", "des", "di", "del", "della", "zur", "fuer", "online", "print", "electronic", "resource"}
)  # fmt: skip


@functools.lru_cache(maxsize=8192)  # a set has few journals, each named on many records
def journal_words(name: str | None) -> tuple[str, ...]:
    """A journal's name as folded words, stop-words and a parenthesised place dropped
    ("The Lancet" -> ``("lancet",)``, "Diabetes & metabolism" -> ``("diabetes", "metabolism")``)."""
    if not name:
        return ()
    text = re.sub(r"\([^)]*\)|\[[^\]]*\]", " ", html.unescape(name)).replace("&", " and ")
    return tuple(w for w in plain(text).split() if w not in _JOURNAL_STOP)


def journal_names(*names: str | None) -> tuple[tuple[str, ...], ...]:
    """The words of each name a journal goes by, and of each name's part before a subtitle
    ("Clinical cancer research : an official journal of the AACR" is also "Clinical cancer
    research"; "Ai zheng = Aizheng = Chinese journal of cancer" each of its three)."""
    out: list[tuple[str, ...]] = []
    for name in names:
        if not name:
            continue
        for part in (name, *re.split(r"\s*[:=]\s|\.\s*Conference:|\s-\s|/", name)):
            words = journal_words(part)
            if words and words not in out:
                out.append(words)
    return tuple(out)


def same_journal(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two journal names name one journal: equal, or one an abbreviation of the other
    (every abbreviated word a prefix of the next full word, in order: "J Am Coll Cardiol" /
    "Journal of the American College of Cardiology")."""
    if not a or not b:
        return False
    if a == b:
        return True
    short, full = (a, b) if len("".join(a)) <= len("".join(b)) else (b, a)
    return _abbreviates(short, full)


def _abbreviates(short: tuple[str, ...], full: tuple[str, ...]) -> bool:
    if len(short) != len(full):
        return False
    return all(_contracts(word, whole) for word, whole in zip(short, full, strict=True))


def _contracts(word: str, whole: str) -> bool:
    """``word`` is ``whole`` cut short or contracted: its first letter, then its letters in order
    ("j"/"journal", "cardiol"/"cardiology", "natl"/"national", "mgmt"/"management")."""
    if whole.startswith(word):
        return True
    if not word or word[0] != whole[0] or len(word) < 3:
        return False
    rest = iter(whole[1:])
    return all(c in rest for c in word[1:])


def issns(values: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    out = set()
    for value in values:
        digits = re.sub(r"[^0-9Xx]", "", value).upper()
        if len(digits) == 8:
            out.add(digits)
    return tuple(sorted(out))


def number(value: object) -> str | None:
    """A volume's or issue's leading number ("38", "38 (Suppl 2)" -> "38"), or None."""
    if value is None:
        return None
    text = str(value).strip()
    if not text or text.upper() in {"UNKNOWN", "NAN", "NONE"}:
        return None
    match = re.match(r"\D{0,12}?(\d+)", text)
    return str(int(match.group(1))) if match else None


_MONTH_ISSUE = re.compile(r"(?i)\s*(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s*")


def issue_number(value: object) -> str | None:
    """An issue's number (:func:`number`); a monthly's issue written as its month ("May", one
    index's form of the issue another numbers 5) is that month's number."""
    month = _MONTH_ISSUE.fullmatch(str(value)) if value is not None else None
    return str(_MONTHS.index(month.group(1).lower()) + 1) if month else number(value)


def page_range(pages: str | None) -> tuple[str, int, int] | None:
    """``(prefix, first, last)`` of a page field, the last page written short expanded
    ("1297-306" -> ``("", 1297, 1306)``, "e1234" -> ``("e", 1234, 1234)``, "S78-S89" ->
    ``("s", 78, 89)``), or None."""
    if not pages or re.fullmatch(r"(?i)\s*\d+\s*(?:p|pp|pages?)\.?\s*", str(pages)):
        return None  # "215 p": a thesis's or book's page count, not where it is
    dated = _SPREADSHEET_DATE.fullmatch(str(pages).strip())
    if dated:
        # "21-Apr": a spreadsheet made a date of "4-21" (or of "21-4" in another locale): the
        # two numbers are the range's ends, whichever order the locale wrote them in
        day = int(dated.group("day") or dated.group("day2"))
        month = _MONTHS.index((dated.group("month") or dated.group("month2"))[:3].lower()) + 1
        return "", min(day, month), max(day, month)
    match = re.match(
        r"[\s\"']*([A-Za-z]{0,3})\s*0*(\d+)(?:\s*[-\u2013]+\s*[A-Za-z]{0,3}\s*0*(\d+))?", str(pages)
    )
    if not match:
        return None
    prefix, first, last = match.group(1).lower(), match.group(2), match.group(3)
    start = int(first)
    end = start
    if last:
        short = len(last) < len(first)
        if short:
            last = first[: len(first) - len(last)] + last
        end = max(start, int(last)) if short else int(last)
        if end < start:
            # "2297-2108": a range written backwards or with a typo in one of its pages (the
            # article is 2097-2108); it spans both numbers, so it rules out nothing it may be
            start, end = end, start
    return prefix, start, end


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_SPREADSHEET_DATE = re.compile(
    rf"(?i)(?P<day>\d{{1,2}})[-/ ](?P<month>{_MONTH})|(?P<month2>{_MONTH})[-/ ](?P<day2>\d{{1,2}})"
)


def pages_differ(a: tuple[str, int, int], b: tuple[str, int, int]) -> bool:
    """Whether two page fields cannot be one article's: ranges of the same kind that do not
    overlap. An article number beside a page range ("e12724" / "1-6", "a1754" / "969-972") and a
    one-page entry within a range ("488" / "487-488") are not a conflict."""
    if (a[0] in ARTICLE_NUMBER) != (b[0] in ARTICLE_NUMBER):
        return False
    if _article_number(a) != _article_number(b):
        # Elsevier's six-digit article number ("106482") beside what another database gives as
        # the article's page count or a page of its own PDF ("11"): no conflict either
        return False
    return a[2] < b[1] or b[2] < a[1]


def _article_number(p: tuple[str, int, int]) -> bool:
    """A bare number of five digits or more with no range: an article number, not a page."""
    return p[1] == p[2] and p[1] >= 10_000


ARTICLE_NUMBER = frozenset({"e", "a", "b", "c", "d", "art", "no"})
