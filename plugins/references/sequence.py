"""A trained token labeller for free-text references: a linear-chain CRF over the tokens of one
reference, each token labelled author, year, title, journal, volume, issue, pages or other.

The rule reader (``freetext.py``) finds the fields by what marks them in the styles it knows; the
model sees the same string token by token, with the rule reader's own reading among its features
(stacking), and learns from references labelled by their publishers in many styles when the rules'
cut is to be trusted and when the tokens say otherwise. ``benchmarks/train_reference_model.py``
trains it (python-crfsuite, a training-only tool) and writes ``reference_model.json`` next to this
module, with ``REFERENCE_MODEL_PROVENANCE.md`` naming the data. At run time the weights are read
once, on first use (about 0.1 s), and decoded here with numpy (Viterbi over eight labels; the
forward-backward marginals only where the model and the rules read a field differently): no
trained-model library at run time, and 100 references cost about 0.15 s of CPU with the rules.

Per field, the rules' reading stands unless the model reads the field otherwise and is sure of the
tokens the two disagree on (``combine``: the mean vote passes ``MARGIN``, chosen on the corpus and
the held-out house styles, not on AnyStyle's sets), or the rules read nothing there.

``FEATURES_VERSION`` stamps the feature set: the training script writes it into the model file and
the loader refuses a model built with other features (a test holds the shipped file to it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from .names import parse_authors
from .stated import NUMBERING, YEAR, StatedReference, clean_title

FEATURES_VERSION = 1
LABELS = ("author", "year", "title", "journal", "volume", "issue", "pages", "other")
MODEL_PATH = Path(__file__).with_name("reference_model.json")
_MONTHS = r"Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"
MAX_CHARS = 4000  # checked before tokenising: a 20,000-character line costs the rules' time only
MAX_TOKENS = 400  # the longest real references (hundreds of names) stay well under it

_TOKEN = re.compile(r"\w+(?:['’]\w+)*|[^\w\s]", re.UNICODE)  # O'Connor, D’Souza: one token
_OPEN_QUOTES = '“"‘«'
_CLOSE_QUOTES = '”"’»'
# words journal names are made of, abbreviated or not: a dictionary hit is one feature among many
_JOURNAL_WORDS = frozenset(
    "j journal am int br eur clin med res rev proc natl acad sci biol chem phys lett ann arch "
    "bull trans soc assoc rep opin curr adv exp mol cell gen pharmacol pharm neurol neurosci "
    "psychiatry psychiatr psychol immunol infect dis surg pediatr paediatr obstet gynecol oncol "
    "cancer epidemiol health public nurs endocrinol metab diabetes cardiol heart lancet bmj jama "
    "nature science plos one front genet genom genomics microbiol virol dev physiol anat pathol "
    "radiol rheumatol dermatol ophthalmol urol nephrol gastroenterol hepatol hematol blood "
    "biochem biophys struct methods syst ther drug drugs nutr food environ toxicol vet ecol evol "
    "zool bot plant agric quart q annu acta scand can aust jpn chin ger ital span nat commun rep "
    "sci transl engl n eng new york acad intern emerg crit care".split()
)


@dataclass(frozen=True)
class Token:
    start: int
    end: int
    text: str


def tokenize(text: str) -> list[Token]:
    return [Token(m.start(), m.end(), m.group(0)) for m in _TOKEN.finditer(text)]


def body_tokens(text: str) -> list[Token]:
    """The tokens after a list's numbering ("12.", "[3]", "(63)"): the model never sees the number,
    so a name after it reads as the first token of the reference, as in training."""
    m = NUMBERING.match(text)
    skip = m.end() if m else 0
    return [t for t in tokenize(text) if t.start >= skip]


@lru_cache(maxsize=65536)
def _shape(t: str) -> str:
    s = re.sub(r"[A-Z]", "X", t)
    s = re.sub(r"[a-z]", "x", s)
    s = re.sub(r"\d", "d", s)
    s = re.sub(r"[^\x00-\x7f]", "u", s)
    return re.sub(r"(.)\1{2,}", r"\1\1", s)  # "Xxxxxxx" and "Xxx" alike: "Xxx" -> "Xxx"


@lru_cache(maxsize=65536)
def _flags(t: str) -> tuple[str, ...]:
    out = []
    if re.fullmatch(YEAR, t):
        out.append("year")
    elif re.fullmatch(YEAR + "[a-z]", t):
        out.append("year+")
    if t.isdigit():
        out.append(f"digits{min(len(t), 5)}")
    elif re.fullmatch(r"[A-Za-z]\d+|\d+[A-Za-z]", t):
        out.append("locator")  # e1003435, S12, 12A
    if re.fullmatch(r"[IVXLC]+", t) and len(t) > 1:
        out.append("roman")
    if len(t) == 1 and t.isupper():
        out.append("initial")
    elif t.isupper() and t.isalpha():
        out.append("caps")
    elif t[:1].isupper():
        out.append("cap")
    elif t[:1].islower():
        out.append("lower")
    if t.lower() in _JOURNAL_WORDS:
        out.append("jword")
    if t.lower() in ("et", "al", "and", "&"):
        out.append("nameglue")
    if t.lower() in ("in", "eds", "ed", "editors", "editor", "press", "publisher"):
        out.append("book")
    if t.lower() in ("vol", "volume", "no", "issue", "pp", "p", "pages", "suppl"):
        out.append("label")
    if t.lower() in ("doi", "pmid", "pmcid", "http", "https", "www", "org", "available", "accessed"):
        out.append("ident")
    if t in _OPEN_QUOTES or t in _CLOSE_QUOTES or t == "'":
        out.append("quote")
    return tuple(out)


def rule_labels(text: str, tokens: list[Token], ref: StatedReference) -> list[str]:
    """Where the rule reader's fields lie among the tokens: each field value found in the text
    (the title, then the journal after it, the numbers after those), the names before them."""
    labels = ["none"] * len(tokens)

    def mark(start: int, end: int, label: str) -> None:
        for i, t in enumerate(tokens):
            if t.start >= start and t.end <= end and labels[i] == "none":
                labels[i] = label

    cut = len(text)
    after = 0
    if ref.title:
        s = text.find(ref.title)
        if s < 0:
            s = text.find(ref.title[:20])
            e = s + len(ref.title) if s >= 0 else -1
        else:
            e = s + len(ref.title)
        if s >= 0:
            mark(s, e, "title")
            cut, after = min(cut, s), max(after, e)
    if ref.journal:
        s = text.find(ref.journal, after)
        if s < 0:
            s = text.find(ref.journal)
        if s >= 0:
            mark(s, s + len(ref.journal), "journal")
            cut, after = min(cut, s), max(after, s + len(ref.journal))
    if ref.authors:
        for i, t in enumerate(tokens):
            if t.end <= cut and not re.fullmatch(YEAR + "[a-z]?", t.text) and labels[i] == "none":
                labels[i] = "author"
    numbers = [
        (str(ref.year) if ref.year else None, "year", 0),
        (ref.volume, "volume", after),
        (ref.issue, "issue", after),
        (ref.first_page, "pages", after),
        (ref.last_page, "pages", after),
    ]
    for value, label, start in numbers:
        if not value:
            continue
        for i, t in enumerate(tokens):
            if t.start >= start and t.text == value and labels[i] in ("none", "author"):
                labels[i] = label
                break
    return labels


@lru_cache(maxsize=65536)
def _views(t: str) -> tuple[tuple[str, ...], ...]:
    """A token's attributes as itself, as the token before or after another, and two away."""
    w, shape, flags = t.lower(), _shape(t), _flags(t)
    own = ("w=" + w, "s=" + shape, *("f=" + x for x in flags))
    before = ("s-1=" + shape, "w-1=" + w, *("f-1=" + x for x in flags))
    after = ("s1=" + shape, "w1=" + w, *("f1=" + x for x in flags))
    return own, before, after, ("s-2=" + shape,), ("s2=" + shape,)


def features(tokens: list[Token], rules: list[str]) -> list[list[str]]:
    n = len(tokens)
    views = [_views(t.text) for t in tokens]
    out: list[list[str]] = []
    depth, quoted, years_seen, stops = 0, False, 0, 0
    for i, t in enumerate(tokens):
        f = ["b", f"p={10 * i // max(n, 1)}", "r=" + rules[i], *views[i][0]]
        for d, view in ((-2, 3), (-1, 1), (1, 2), (2, 4)):
            j = i + d
            if 0 <= j < n:
                f += views[j][view]
                f.append(f"r{d}=" + rules[j])
            else:
                f.append(f"edge{d}")
        f.append(f"r-1r={rules[i - 1] if i else '^'}|{rules[i]}")
        if depth > 0:
            f.append("paren")
        if quoted:
            f.append("quoted")
        f.append(f"years={min(years_seen, 2)}")
        f.append(f"stops={min(stops, 5)}")
        out.append(f)
        if t.text in "([":
            depth += 1
        elif t.text in ")]":
            depth = max(0, depth - 1)
        elif t.text in _OPEN_QUOTES and not quoted:
            quoted = True
        elif t.text in _CLOSE_QUOTES and quoted:
            quoted = False
        if re.fullmatch(YEAR + "[a-z]?", t.text):
            years_seen += 1
        if t.text in ".?!":
            stops += 1
    return out


class Model:
    """A linear-chain CRF's weights: one row of label weights per attribute, and the label-to-label
    transitions. Decoding is numpy's (a few array operations a token)."""

    def __init__(
        self,
        labels: tuple[str, ...],
        transitions: list[list[float]],
        state: dict[str, tuple[tuple[int, float], ...]],
    ) -> None:
        self.labels = labels
        # row 0 holds zeros: every token sums at least that row (no empty segment below), and an
        # attribute's row is never 0, so unknown attributes (None) filter out at C speed
        self.index = {a: i for i, a in enumerate(state, start=1)}
        self.weights = np.zeros((len(state) + 1, len(labels)))
        for a, pairs in state.items():
            for j, w in pairs:
                self.weights[self.index[a], j] = w
        self.transitions = np.array(transitions, dtype=float).reshape(len(labels), len(labels))

    def emissions(self, feats: list[list[str]]) -> np.ndarray:
        get = self.index.get
        flat: list[int] = []
        starts: list[int] = []
        for f in feats:
            starts.append(len(flat))
            flat.append(0)
            flat.extend(filter(None, map(get, f)))
        return np.add.reduceat(self.weights[flat], starts, axis=0)

    def marginals(self, feats: list[list[str]]) -> np.ndarray:
        """P(token t has label j | the reference): forward-backward in log space."""
        e = self.emissions(feats)
        n, k = e.shape
        alpha = np.empty((n, k))
        beta = np.zeros((n, k))
        alpha[0] = e[0]
        for t in range(1, n):
            alpha[t] = e[t] + _logsumexp(alpha[t - 1][:, None] + self.transitions, axis=0)
        for t in range(n - 2, -1, -1):
            beta[t] = _logsumexp(self.transitions + (e[t + 1] + beta[t + 1])[None, :], axis=1)
        z = _logsumexp(alpha[-1], axis=0)
        return np.exp(alpha + beta - z)

    def tag(self, feats: list[list[str]]) -> list[str]:
        if not feats:
            return []
        emissions = self.emissions(feats)
        score = emissions[0]
        back = []
        for row in emissions[1:]:
            total = score[:, None] + self.transitions  # [previous, next]
            best = total.argmax(axis=0)
            back.append(best)
            score = total[best, np.arange(len(best))] + row
        j = int(score.argmax())
        path = [j]
        for ptr in reversed(back):
            j = int(ptr[j])
            path.append(j)
        return [self.labels[j] for j in reversed(path)]


def _logsumexp(a: np.ndarray, axis: int) -> np.ndarray:
    m = a.max(axis=axis, keepdims=True)
    return np.squeeze(m, axis=axis) + np.log(np.exp(a - m).sum(axis=axis))


class ModelMismatch(RuntimeError):
    """The model file was trained with another feature set than this module computes."""


def load_model(path: Path = MODEL_PATH) -> Model:
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("features_version") != FEATURES_VERSION:
        raise ModelMismatch(
            f"{path.name} has features_version {data.get('features_version')}, this reader computes "
            f"{FEATURES_VERSION}: retrain with benchmarks/train_reference_model.py"
        )
    labels = tuple(data["labels"])
    state = {a: tuple((int(j), float(w)) for j, w in ws.items()) for a, ws in data["state"].items()}
    return Model(labels, [[float(w) for w in row] for row in data["transitions"]], state)


@lru_cache(maxsize=1)
def shipped_model() -> Model | None:
    """The model shipped with the package, read on first use; None when the file is absent."""
    return load_model() if MODEL_PATH.exists() else None


def label_tokens(text: str, ref: StatedReference, model: Model) -> tuple[list[Token], list[str]]:
    tokens = body_tokens(text)
    return tokens, model.tag(features(tokens, rule_labels(text, tokens, ref)))


def _runs(labels: list[str], label: str) -> list[tuple[int, int]]:
    runs, i = [], 0
    while i < len(labels):
        if labels[i] == label:
            j = i
            while j + 1 < len(labels) and labels[j + 1] == label:
                j += 1
            runs.append((i, j))
            i = j + 1
        else:
            i += 1
    return runs


def fields_from_labels(
    text: str, tokens: list[Token], labels: list[str], rule_tags: list[str] | None = None
) -> StatedReference:
    """The fields the labelled tokens spell: each field's first run of tokens, read from the text;
    a title or journal split in runs is the run the rules' cut overlaps most (the model refines the
    rules' cut), else the longest title and the first journal after it."""
    out = StatedReference(text=text)

    def overlap(run: tuple[int, int], label: str) -> int:
        return sum(1 for t in range(run[0], run[1] + 1) if rule_tags and rule_tags[t] == label)

    def span(label: str, after: int = -1) -> tuple[str, int] | None:
        runs = _runs(labels, label)
        if not runs:
            return None
        best = max(runs, key=lambda r: overlap(r, label))
        if label in ("title", "journal") and overlap(best, label):
            i, j = best
        elif label == "title":
            i, j = max(runs, key=lambda r: r[1] - r[0])  # a title's longest run: a name's words may stray
        elif label == "journal":
            # the journal after the title (a group author read as a journal comes before it)
            i, j = next((r for r in runs if r[0] > after), max(runs, key=lambda r: r[1] - r[0]))
        else:
            i, j = runs[0]
        return text[tokens[i].start : tokens[j].end], j

    if (authors := span("author")) is not None:
        out.authors = parse_authors(authors[0])
    title_end = -1
    if (title := span("title")) is not None:
        out.title, title_end = clean_title(title[0]), title[1]
    if (journal := span("journal", title_end)) is not None:
        # a date the model ran into the journal ("Oncogene. 2010 Mar") is not part of its name
        name = re.split(rf"[.,;]?\s+(?:{YEAR}|(?:{_MONTHS})[a-z]*)\b", journal[0])[0]
        out.journal = name.strip(" .,;:(") or None
    for i, lab in enumerate(labels):
        if lab == "year" and re.fullmatch(YEAR + "[a-z]?", tokens[i].text):
            out.year = int(tokens[i].text[:4])
            break
    if (volume := span("volume")) is not None:
        out.volume = next(iter(re.findall(r"\w+", volume[0])), None)
    if (issue := span("issue")) is not None:
        out.issue = next(iter(re.findall(r"\w+", issue[0])), None)
    if (pages := span("pages")) is not None:
        parts = [p for p in re.findall(r"\w+", pages[0]) if p.lower() not in ("p", "pp", "pages")]
        if parts:
            out.first_page = parts[0]
            out.last_page = parts[-1] if len(parts) > 1 else None
    return out


# each label and the fields of a reading it spells
_FIELDS_OF = {  # the journal first: whether a title ran into the journal is judged by it
    "journal": ("journal",),
    "title": ("title",),
    "author": ("authors",),
    "year": ("year",),
    "volume": ("volume",),
    "issue": ("issue",),
    "pages": ("first_page", "last_page"),
}
MARGIN = 0.4  # how sure the model must be where it departs from the rules' cut (see combine)


def combine(
    rules: StatedReference,
    model: StatedReference,
    rule_tags: list[str],
    model_tags: list[str],
    marginals: Callable[[], np.ndarray],
    margin: float = MARGIN,
) -> StatedReference:
    """Per field, the rules' reading or the model's: where the two cut a field differently, the
    tokens they disagree on vote with the model's probability that each belongs to the field (a
    token the model adds counts P - 0.5, one it drops 0.5 - P); the model's reading is taken when
    the mean vote passes ``margin``, or when the rules read nothing there."""
    out = StatedReference(**{k: getattr(rules, k) for k in rules.__dataclass_fields__})
    for label, names in _FIELDS_OF.items():
        j = LABELS.index(label)
        theirs = [getattr(model, n) for n in names]
        if not theirs[0] or theirs == [getattr(rules, n) for n in names]:
            continue  # the model read nothing there, or the same: the rules' reading stands
        if getattr(rules, names[0]) and _runs_on(label, getattr(rules, names[0]), theirs[0], (out, model)):
            continue
        if getattr(rules, names[0]):
            p = marginals()
            votes = [
                (p[t, j] - 0.5) if model_tags[t] == label else (0.5 - p[t, j])
                for t in range(len(rule_tags))
                if (rule_tags[t] == label) != (model_tags[t] == label)
            ]
            if not votes or sum(votes) / len(votes) <= margin:
                continue
        for n, v in zip(names, theirs, strict=True):
            if n != "last_page" or v or theirs[0] != rules.first_page:
                setattr(out, n, v)
    return out


def _runs_on(label: str, ours: object, theirs: object, reads: tuple[StatedReference, ...]) -> bool:
    """The model's title or journal is the rules' one run on or cut short where the rules' cut is the
    better one: a journal run on past a stop into the publisher ("Handbook of Exercise in
    Diabetes. Alexandria (VA): ...") or missing the rules' first words, a title whose first words (an article, an opening quote: 'A
    "Blood Relationship" Between ...') the model left out."""
    if not isinstance(ours, str) or not isinstance(theirs, str) or ours == theirs:
        return False
    if label == "journal":
        # run on into the publisher, or started later than the rules' ("In: 2011 Conference on ...":
        # the proceedings' name as the record gives it)
        ran_on = theirs.startswith(ours) and bool(re.match(r"\s*[.:;]", theirs[len(ours) :]))
        return ran_on or (ours.endswith(theirs) and bool(re.match(r"\s*In\b", ours)))
    if label == "title" and ours.endswith(theirs):
        dropped = ours[: -len(theirs)]  # words the model left out at the title's start
        return len(dropped.split()) <= 3 and not re.search(r"\d", dropped)
    return False


def read_with_model(
    text: str, rules: StatedReference, model: Model | None = None, margin: float = MARGIN
) -> StatedReference:
    """``rules`` (the rule reader's reading of ``text``) checked and completed by the token model."""
    model = model or shipped_model()
    if model is None:
        return rules
    if len(text) > MAX_CHARS:
        return rules
    tokens = body_tokens(text)
    if not tokens or len(tokens) > MAX_TOKENS:
        return rules  # not one reference (a pasted paragraph): the rules' linear-time reading stands
    rule_tags = rule_labels(text, tokens, rules)
    feats = features(tokens, rule_tags)
    model_tags = model.tag(feats)
    read = fields_from_labels(text, tokens, model_tags, rule_tags)
    # the marginals only when a field is read two ways (most references: none)
    marginals = lru_cache(maxsize=1)(lambda: model.marginals(feats))
    return combine(rules, read, rule_tags, model_tags, marginals, margin)
