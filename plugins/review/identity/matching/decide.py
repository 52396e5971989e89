"""Whether two records are one work: :func:`conflict` (what makes it impossible) and
:func:`compare` (the verdict and the rule behind it).

Precision comes first: a false merge loses a study from a review without anyone seeing it, a
missed duplicate costs a screener one extra record. So a conflict always wins, and a match on
metadata needs the title and a second, independent piece of evidence (the authors, the
volume and first page, the journal).
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass, replace

from rapidfuzz import fuzz
from rapidfuzz.distance import Indel

from . import fields
from .work import Work

# A title this long (folded, no spaces) is specific enough that a near-identical one, with the
# same first author, is the same work; shorter ones ("Stroke", "Editorial") need more.
LONG_TITLE = 30
# A title this long found whole at the start or end of the other ("Hybrid job recommendation
# system" / "Hyred: hybrid job recommendation system") is that title cut short; a cut title
# merges only with the authors, the year and the citation agreeing too (under LONG_TITLE: the page).
CONTAINED = 20
STRONG = 0.95  # title similarity for a long title
CLOSE = 0.92  # with the volume and first page agreeing too (chosen with ID_AGREE, below)
# A shared identifier is evidence only when the titles agree this well: a supplement's, an issue's
# or a book's DOI is printed on every abstract, column or chapter in it, and one database's
# record may carry a wrong identifier. Below this the identifier says nothing (chosen by leaving
# one dataset out, benchmarks/lodo_dedup.py).
ID_AGREE = 0.90


@dataclass(frozen=True, slots=True)
class Verdict:
    """``same``: one work. ``rule``: ``pmid``/``doi``/``pmcid`` (the identifier both share) or
    ``title`` (bibliographic metadata), and for ``same=False`` ``conflict:<what>`` or
    ``different``. ``score`` in [0, 1] ranks candidates; ``why`` says it in words."""

    same: bool
    rule: str
    score: float
    why: str


def conflict(a: Work, b: Work, shared: Container[str] = ()) -> str | None:
    """Why ``a`` and ``b`` can never be one record, or None: identifiers that differ; a notice
    (erratum, retraction) beside an article; a conference contribution beside a journal paper
    (unless the journal record has an abstract's shape, :func:`_one_item`); a kind of work (a
    preprint is not its journal version), a part of a series, a year (beyond the one an epub and
    its print issue may differ by), a volume, pages (:func:`fields.pages_differ`), an issue when
    no pages say more, or ISBNs that differ. Strict on identifiers: two DOIs are two records,
    even for versions of one work. A DOI in ``shared`` (one the set holds on records whose titles
    disagree: a supplement's, an issue's, a book's) names no single work and is left out. A
    citation written a field over is read back first (:func:`_aligned`)."""
    a, b, _ = _aligned(a, b)
    return _identifier_conflict(a, b, shared) or _nature_conflict(a, b) or _citation_conflict(a, b)


def _identifier_conflict(a: Work, b: Work, shared: Container[str]) -> str | None:
    for name in ("pmid", "doi", "pmcid"):
        x, y = getattr(a, name), getattr(b, name)
        if x and y and x != y and not (name == "doi" and (x in shared or y in shared)):
            return name
    return None


def shared_identifier(a: Work, b: Work, shared: Container[str] = ()) -> tuple[str, str] | None:
    """The identifier ``a`` and ``b`` both carry, as (name, value), unless it is a DOI in
    ``shared``."""
    for name in ("pmid", "doi", "pmcid"):
        value = getattr(a, name)
        if value and value == getattr(b, name) and not (name == "doi" and value in shared):
            return name, value
    return None


def _nature_conflict(a: Work, b: Work) -> str | None:
    """What kind of item each is: a notice, a meeting's contribution, a kind of work, a part."""
    if a.notice != b.notice:
        return "notice"
    if a.meeting != b.meeting and not _one_item(a, b):
        return "meeting"
    # One DOI or PMID is one object, however two databases type it (OpenAlex's "posted-content"
    # beside an index's "article" for one Research Square DOI): the kinds differ by labelling only.
    same_id = shared_identifier(a, b) is not None
    if (
        a.kind
        and b.kind
        and a.kind != b.kind
        and not {a.kind, b.kind} & {"other"}
        and not _proceedings(a, b)
        and not same_id
    ):
        return "kind"
    if a.parts and b.parts and not (set(a.parts) <= set(b.parts) or set(b.parts) <= set(a.parts)):
        return "part"
    return None


def _citation_conflict(a: Work, b: Work) -> str | None:
    """Where each was published: year, volume, pages, issue, ISBN."""
    if a.year is not None and b.year is not None and abs(a.year - b.year) > 1:
        return "year"
    if a.volume and b.volume and a.volume != b.volume:
        return "volume"
    if (
        a.pages
        and b.pages
        and fields.pages_differ(a.pages, b.pages)
        and not (_locators(a, b) or _listed_twice(a, b))
    ):
        return "pages"
    if a.issue and b.issue and a.issue != b.issue and not a.pages and not b.pages:
        # A recurring column ("Editor's Comments") has one title in every issue; with no pages
        # the issue is what tells its instalments apart. (Where pages are known they decide: some
        # exports put a record number in the issue field.)
        return "issue"
    if a.isbn and b.isbn and not set(a.isbn) & set(b.isbn):
        return "isbn"
    return None


def _proceedings(a: Work, b: Work) -> bool:
    # A conference paper in a book series (Lecture Notes...) is a chapter to one database.
    return {a.kind, b.kind} == {"conference", "chapter"}


def _one_item(a: Work, b: Work) -> bool:
    """Whether a conference record and a journal record may be one printed abstract, labelled
    differently by two databases: the same volume and first page, or the journal record brief
    (two pages at most, or in a supplement) with nothing placing the conference one elsewhere.
    A journal paper with a full page range is never its meeting abstract."""
    if a.volume and a.volume == b.volume and a.page is not None and a.page == b.page:
        return True
    journal_record = b if a.meeting else a
    return journal_record.brief


def _locators(a: Work, b: Work) -> bool:
    """Both pages are electronic locators ("e8-e9" / "e3") in one volume and issue: a meeting's
    abstracts get them once in the programme and again in the print listing, so they do not
    place a work the way page numbers do."""
    assert a.pages and b.pages
    return (
        a.pages[0] in fields.ARTICLE_NUMBER
        and b.pages[0] in fields.ARTICLE_NUMBER
        and bool(a.volume and a.volume == b.volume and a.issue and a.issue == b.issue)
    )


def _listed_twice(a: Work, b: Work) -> bool:
    """One meeting abstract numbered once in the programme and again in the journal's listing
    (pages 22 and 52 of one volume): the same title word for word, on a single page each of one
    volume. Such a page places an abstract no more than an electronic locator does; the title and
    the authors decide (:func:`_title_supports`)."""
    assert a.pages and b.pages
    return bool(
        (a.meeting or b.meeting or a.supplement or b.supplement)
        and a.title
        and a.title == b.title
        and a.volume
        and a.volume == b.volume
        and a.pages[1] == a.pages[2]
        and b.pages[1] == b.pages[2]
    )


def _aligned(a: Work, b: Work) -> tuple[Work, Work, bool]:
    """``a`` and ``b`` with a citation one index wrote a field over read back in place, and
    whether one was: no volume, the volume in the issue field and the issue in the pages
    ("issue 26, page 9" beside "volume 26, issue 9, page 1746"). Read as written, the pages
    conflict; read back, the volume and issue agree and the page is unknown."""
    if _shifted(a, b):
        return replace(a, volume=a.issue, issue=b.issue, pages=None), b, True
    if _shifted(b, a):
        return a, replace(b, volume=b.issue, issue=a.issue, pages=None), True
    return a, b, False


def _shifted(x: Work, y: Work) -> bool:
    return bool(
        x.volume is None
        and x.issue
        and x.issue == y.volume
        and x.pages
        and x.pages[0] == ""
        and x.pages[1] == x.pages[2]
        and y.issue == str(x.pages[1])
    )


def title_similarity(a: Work, b: Work) -> tuple[float, bool]:
    """The best similarity of any two forms of the titles (0..1), and whether it came only
    from one side's title cut short: its subtitle dropped, text appended to it ("(NEURITES)" /
    "(NEURITES) for the NEURITE investigators") or a section heading put before it ("MEDICAL
    PROGRESS Atypical hemolytic-uremic syndrome"). Never both sides' subtitles dropped: two
    subtitles that differ make two works."""
    best = 0.0
    for x in a.titles:
        for y in b.titles:
            best = max(best, Indel.normalized_similarity(x, y))
    if best >= STRONG:
        return best, False
    cut = 0.0
    if a.head:
        cut = max((Indel.normalized_similarity(a.head, y) for y in b.titles), default=0.0)
    if b.head:
        cut = max(cut, max((Indel.normalized_similarity(x, b.head) for x in a.titles), default=0.0))
    x, y = sorted((a.title, b.title), key=len)
    if len(x) >= CONTAINED and (y.startswith(x) or y.endswith(x)):
        cut = 1.0
    return (cut, True) if cut > best else (best, False)


def authors_agree(a: Work, b: Work) -> bool | None:
    """Whether the author lists name the same people (None when one is unknown): the first
    authors' family names alike (a typo, a dropped hyphen or a second family name allowed) and
    their first initials too when both give one; or most families shared (an order changed)."""
    if not a.authors or not b.authors:
        return None
    (fa, ia), (fb, ib) = a.authors[0], b.authors[0]
    if _same_family(fa, fb) and (not ia or not ib or ia[0] == ib[0]):
        return True
    fam_a = {f for f, _ in a.authors[:10]}
    fam_b = {f for f, _ in b.authors[:10]}
    shared = len(fam_a & fam_b)
    if shared >= 2 and shared >= 0.6 * min(len(fam_a), len(fam_b)):
        return True
    return _swapped(a.authors[:10], b.authors[:10])


def _swapped(a: tuple[tuple[str, str], ...], b: tuple[tuple[str, str], ...]) -> bool:
    """Given and family names swapped by one database ("Carignani, Andrea" / "Andrea, C.",
    "Wang, X." / "Xiaoguang, Wang"): each person's two first letters agree as a set, for most
    of two authors or more, position by position."""
    n = min(len(a), len(b))
    if n < 2:
        return False

    def letters(p: tuple[str, str]) -> frozenset[str]:
        return frozenset((p[0][:1], p[1][:1]))

    alike = sum(letters(x) == letters(y) and len(letters(x)) == 2 for x, y in zip(a, b, strict=False))
    return alike >= 2 and alike >= 0.6 * n


def _same_family(x: str, y: str) -> bool:
    if x == y:
        return True
    if min(len(x), len(y)) >= 4 and (x.startswith(y) or y.startswith(x) or x.endswith(y) or y.endswith(x)):
        return True
    return min(len(x), len(y)) >= 5 and fuzz.ratio(x, y) >= 85


def same_journal(a: Work, b: Work) -> bool | None:
    """Whether the containers are one journal; None when unknown, or when either is a
    conference's proceedings (named anew each year, differently by each database)."""
    if a.issn and b.issn and set(a.issn) & set(b.issn):
        return True
    if not a.journals or not b.journals or "conference" in (a.kind, b.kind):
        return None
    return any(fields.same_journal(x, y) for x in a.journals for y in b.journals)


def compare(a: Work, b: Work, shared: Container[str] = ()) -> Verdict:
    """The verdict on ``a`` and ``b``: a conflict first; then a shared identifier, which is
    evidence only with titles that agree (or, when a record has no title, with the authors);
    then the title with the authors and the bibliographic details. Every merge is supported by
    the title, or without one by an identifier and the authors together. ``shared``: DOIs the set
    holds on records whose titles disagree (:func:`titles_agree`), never an identity."""
    a, b, shifted = _aligned(a, b)
    verdict = _compare(a, b, shared)
    if shifted and verdict.same:
        return replace(verdict, why=f"{verdict.why} (one record's volume and issue written a field over)")
    return verdict


def _compare(a: Work, b: Work, shared: Container[str]) -> Verdict:
    why = conflict(a, b, shared)
    if why:
        return Verdict(False, f"conflict:{why}", 0.0, f"the records' {why} differ")
    same_id = shared_identifier(a, b, shared)
    if not a.titles or not b.titles:
        # A stub without a title: the ASySD haematology set keeps one apart from the article at
        # its very citation, so a citation alone is not enough; an identifier needs the authors.
        if same_id and authors_agree(a, b):
            name, value = same_id
            return Verdict(True, name, 1.0, f"{name} {value} + authors (a record has no title)")
        return Verdict(False, "different", 0.0, "no title to compare")
    if same_id:
        name, value = same_id
        sim, _ = title_similarity(a, b)
        if sim >= ID_AGREE:
            return Verdict(True, name, 1.0, f"{name} {value} + title {sim:.2f}")
        translation = _translation(a, b, sim, authors_agree(a, b), same_journal(a, b))
        if translation:
            return Verdict(True, name, 1.0, f"{name} {value} + {translation}")
        return Verdict(False, "different", 0.0, f"{name} {value} shared, but the titles differ ({sim:.2f})")
    return _by_title(a, b)


def titles_agree(a: Work, b: Work) -> bool:
    """Whether two titled records' titles agree well enough for a shared identifier to count
    (True when either has no title: nothing disagrees)."""
    return not a.titles or not b.titles or title_similarity(a, b)[0] >= ID_AGREE


def _by_title(a: Work, b: Work) -> Verdict:
    """The verdict on two titled records without a shared identifier or a conflict. A meeting
    abstract (a conference contribution or an item in a supplement) is matched on its title and
    its authors: a supplement's volume and page ("Diabetologia 1, S72") are printed on many
    abstracts, so they never stand in for the authors."""
    authors = authors_agree(a, b)
    journal = same_journal(a, b)
    # The same first page in the same (or an unstated) volume.
    place = a.page is not None and a.page == b.page and (a.volume == b.volume or not a.volume or not b.volume)
    details = 2 * place + bool(a.issue and a.issue == b.issue) + bool(journal)
    same_year = a.year is not None and a.year == b.year
    sim, cut = title_similarity(a, b)
    score = round(0.7 * sim + 0.1 * bool(authors) + 0.05 * details, 4)
    said = f"title {sim:.2f}{' (one cut short)' if cut else ''}, authors {authors}, details {details}"
    ok = _title_supports(a, b, sim, cut, authors, journal, place, details, same_year)
    if ok:
        return Verdict(True, "title", score, _evidence(sim, cut, authors, same_year, place, journal, a, b))
    translation = _translation(a, b, sim, authors, journal)
    if translation:
        return Verdict(True, "title", score, translation)
    return Verdict(False, "different", score, said)


def _title_supports(
    a: Work,
    b: Work,
    sim: float,
    cut: bool,
    authors: bool | None,
    journal: bool | None,
    place: bool,
    details: int,
    same_year: bool,
) -> bool:
    """Whether the title, with the authors and the citation beside it, makes two records one."""
    ok: bool
    if cut:
        # a short title's remainder (under LONG_TITLE) only at the same page
        short = min(len(a.title), len(b.title)) < LONG_TITLE
        ok = bool(sim >= STRONG and authors and same_year and details >= 2 and (place or not short))
    elif min(len(a.title), len(b.title)) >= LONG_TITLE:
        ok = _long_titles_agree(sim, authors, journal, place, details, same_year)
    else:
        # A short title needs the whole citation; a year apart (an epub and its print issue) only
        # with the page, the issue and the journal all agreeing.
        ok = bool(sim >= 0.98 and authors and (same_year or details >= 4) and details >= 2)
    abstract = a.meeting or b.meeting or a.supplement or b.supplement
    if ok and abstract:
        # An abstract is matched on its title and its authors; a proceedings paper (or an article
        # in a supplement) over the same pages of several is placed by them as any paper is.
        ok = bool(authors and (sim >= STRONG or same_range(a, b)))
    # One page of a supplement holds several abstracts: it places none of them.
    placed = place and (not abstract or same_range(a, b))
    return ok and (placed or cut or not swapped(a, b))


def same_range(a: Work, b: Work) -> bool:
    """Both at the same first and last page of a range of three pages or more: an abstract's
    page or a supplement's is shared by many, a paper's whole page range in a volume is its own."""
    return bool(a.pages and b.pages and a.pages[1:] == b.pages[1:] and a.pages[2] - a.pages[1] >= 2)


def _translation(a: Work, b: Work, sim: float, authors: bool | None, journal: bool | None) -> str | None:
    """The evidence that two records are one paper under two translations of its title, or None.
    Translations of one title need not look alike ("Zum aktuellen Stand des Plattformkapitalismus"
    / "The current situation of platform capitalism"; two English renderings of one Spanish
    title), so the title supports the merge only by saying it is a translation (bracketed, beside
    its original, a language note) or by being in another language than the other; the rest of
    the citation must then place both at one paper: the authors, the year, the journal, the
    volume and the same range of pages."""
    other_tongue = bool(a.tongue and b.tongue and a.tongue != b.tongue)
    if not (a.translated or b.translated or other_tongue) or a.notice or b.notice:
        return None
    year = a.year is not None and a.year == b.year
    if not (authors and journal and year and a.volume and a.volume == b.volume and same_range(a, b)):
        return None
    assert a.pages
    said = "languages differ" if other_tongue else "a title translated"
    return f"title {sim:.2f} ({said}) + authors + year + journal + volume and pages {a.pages[1]}-{a.pages[2]}"


# Words a title may gain or lose between databases without naming anything else.
_FUNCTION = frozenset(
    {"a", "an", "the", "of", "in", "on", "for", "and", "with", "to", "by", "from", "at", "as", "or", "its",
     "their", "is", "are", "vs", "versus", "via", "into", "among", "after", "during", "using"}
)  # fmt: skip


def swapped(a: Work, b: Work) -> bool:
    """Whether each title has a word the other has no form of (not a misspelling, not a word
    the other writes joined): a word swapped for another ("Pediatric" / "Adult",
    "plasma therapy-sensitive" / "-resistant") names another work, however alike the rest. Only
    between single-form titles (an original and its translation differ in every word)."""
    if len(a.titles) != 1 or len(b.titles) != 1:
        return False
    return _unmatched(a.words, b) and _unmatched(b.words, a)


def _unmatched(words: tuple[str, ...], other: Work) -> bool:
    theirs = set(other.words)
    for word in words:
        if word in theirs or len(word) < 3 or word.isdigit() or word in _FUNCTION or word in other.title:
            continue
        if all(Indel.normalized_similarity(word, w) < 0.75 for w in theirs):
            return True
    return False


def _evidence(
    sim: float,
    cut: bool,
    authors: bool | None,
    same_year: bool,
    place: bool,
    journal: bool | None,
    a: Work,
    b: Work,
) -> str:
    """A merge by title in a person's words: what agreed ("title 0.97 + authors + year + volume
    and page + journal")."""
    said = [f"title {sim:.2f}{' (one cut short)' if cut else ''}"]
    said += ["authors"] if authors else []
    said += ["year"] if same_year else []
    said += ["volume and page"] if place else []
    said += ["issue"] if a.issue and a.issue == b.issue else []
    said += ["journal"] if journal else []
    return " + ".join(said)


def _long_titles_agree(
    sim: float, authors: bool | None, journal: bool | None, place: bool, details: int, same_year: bool
) -> bool:
    return bool(
        # Two journals both named and not one: the title and a name are not enough (a
        # commentary reprinted under the same title in another journal).
        (sim >= STRONG and ((authors and (details or journal is None)) or (authors is None and details >= 2)))
        or (sim >= CLOSE and authors and details >= 2 and same_year)
        # A group's name for a person's, a family name misspelt: the whole citation agrees.
        or (sim >= 0.98 and same_year and place and details >= 3)
    )
