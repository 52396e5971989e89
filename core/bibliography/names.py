"""Person names as exports write them, made "Family, Given" (given names or initials as written);
a group author (several words, no comma, no initials) is kept whole; and initials made from a
given name the one way every writer makes them."""

from __future__ import annotations

import re

# One run of initials as a token: "J", "JD", "J.D.", "J.-P.", "Ch." is not one (a given name).
_INITIAL_RUN = re.compile(r"(?:[A-Z]\.-?)*[A-Z]\.")
_STRICT_INITIALS = re.compile(r"^(?:[A-Z]\.?-?){1,4}$")
# Trailers sources add to a name: Scopus author ids "(57190394669)", Zoological Record emails.
_TRAILER = re.compile(r"\s*\([^()]*\)\s*$")
_PARTICLES = {
    "van",
    "von",
    "de",
    "der",
    "den",
    "del",
    "della",
    "di",
    "da",
    "du",
    "la",
    "le",
    "dos",
    "das",
    "ter",
    "ten",
    "bin",
    "al",
}


def _strip_initial_period(given: str) -> str:
    # "E." -> "E", "A. G." -> "A. G"; "Jr." or "Ma." (given names as written) stay.
    if not given.endswith("."):
        return given
    tokens = given.split(" ")
    if _INITIAL_RUN.fullmatch(tokens[-1]):
        tokens[-1] = tokens[-1][:-1]
    return " ".join(tokens)


def person(raw: str | None, *, given_first: bool = False) -> str | None:
    """One person's (or group's) name in the record's form."""
    if not raw:
        return None
    name = " ".join(raw.split()).strip(";").strip()
    while name.endswith(")") and not name.startswith("(") and _TRAILER.search(name):
        name = _TRAILER.sub("", name)
    name = name.strip().rstrip(",").strip()
    if not name:
        return None
    if "," in name:
        family, _, given = name.partition(",")
        family, given = family.strip(), given.strip()
        if given.lower() in ("null", "none", "n/a", ""):
            return family or None
        if not family:
            return given
        return f"{family}, {_strip_initial_period(given)}"
    tokens = name.split(" ")
    if len(tokens) == 1:
        return name
    if given_first:
        # "Paul M. Barrett", "Ludwig van Beethoven": the family name is the last word and the
        # lower-case particles just before it.
        cut = len(tokens) - 1
        while cut > 1 and tokens[cut - 1].lower() in _PARTICLES:
            cut -= 1
        return f"{' '.join(tokens[cut:])}, {_strip_initial_period(' '.join(tokens[:cut]))}"
    # "Griffin DK", "Wilson L.N.", "Brownstein C D": family name first, then initials.
    cut = len(tokens)
    while cut > 1 and _STRICT_INITIALS.match(tokens[cut - 1]):
        cut -= 1
    if cut < len(tokens):
        return f"{' '.join(tokens[:cut])}, {_strip_initial_period(' '.join(tokens[cut:]))}"
    # "A. Smith", "J.-P. van Dam" (IEEE): initials with periods, then the family name.
    lead = 0
    while lead < len(tokens) - 1 and _INITIAL_RUN.fullmatch(tokens[lead].rstrip("-")):
        lead += 1
    rest = tokens[lead:]
    if lead and all(t.lower() in _PARTICLES for t in rest[:-1]):
        return f"{' '.join(rest)}, {_strip_initial_period(' '.join(tokens[:lead]))}"
    return name  # several words, no comma, no initials: a group ("TAX 325 Study Group")


def _ends_with_initials(part: str) -> bool:
    tokens = part.strip().split(" ")
    return len(tokens) >= 2 and bool(_STRICT_INITIALS.match(tokens[-1]))


def split_people(cell: str | None, *, given_first: bool = False) -> list[str]:
    """The people in one cell, split the way its source writes them: "; " (most exports),
    " and " (BibTeX-like), "|" (OpenAlex), or ", " between "Family AB" names (PubMed, Embase)."""
    if not cell or not cell.strip():
        return []
    text = cell.strip()
    if "|" in text:
        parts = text.split("|")
    elif ";" in text:
        parts = text.split(";")
    elif " and " in text:
        parts = text.split(" and ")
    elif "," in text:
        pieces = [p for p in text.rstrip(".").split(",")]
        # "Griffin DK, Larkin DM" and "Yang Z., Jiang B." are lists; "Smith, John" is one name.
        parts = (
            pieces if all(_ends_with_initials(p) for p in pieces if p.strip()) and len(pieces) > 1 else [text]
        )
    else:
        parts = [text]
    people: list[str] = []
    for part in parts:
        name = person(part, given_first=given_first)
        if name:
            people.append(name)
    return people


def initials(given: str) -> tuple[str, ...]:
    """A given name's initials, a hyphenated name's kept together: ``"John A"`` -> ``("J", "A")``,
    ``"Jean-Pierre"`` -> ``("J-P",)``, and a given name already written as initials stays
    letters (``"JA"``, ``"J.A."`` -> ``("J", "A")``)."""
    out: list[str] = []
    for token in given.replace(".", " ").split():
        if token.isupper() and len(token) <= 3 and "-" not in token:
            out.extend(c for c in token if c.isalpha())
        else:
            first = [part[0].upper() for part in token.split("-") if part and part[0].isalpha()]
            if first:
                out.append("-".join(first))
    return tuple(out)
