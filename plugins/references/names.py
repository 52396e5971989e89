"""Author names as references print them, read into ``"Family Initials"``: Vancouver
("Tkaczyk D, Walker-Smith JA"), APA/Harvard ("Tkaczyk, D., & Szostek, P."), ACS ("Stahl, H.;
Appenzeller, J."), given names first ("D. Tkaczyk", "Dominika Tkaczyk") and group authors.

Every reader of a reference uses it: the format readers for one name at a time
(:func:`one_name`), the free-text rules and the token model for a whole author segment
(:func:`parse_authors`).
"""

from __future__ import annotations

import re

ETAL = re.compile(r"\bet\.?\s+al\.?", re.I)

PARTICLES = {"van", "von", "de", "der", "den", "da", "di", "del", "la", "le", "du", "dos", "ten", "ter"}


def _initials(given: str) -> str:
    words = [w for w in re.split(r"[\s.\-]+", given) if w]
    if len(words) == 1 and words[0].isupper() and len(words[0]) <= 4:
        return words[0]
    return "".join(w[0].upper() for w in words if w[0].isalpha())


def name_family_first(family: str, given: str = "") -> str:
    return " ".join(x for x in (family.strip(" ,.{}"), _initials(given.strip(" ,{}"))) if x)


# "JA", "J.A.", "J.-P." and the "J.M" a list's last name keeps once its final stop is cut ("Crow J.M.")
_INITIALS_WORD = r"[A-Z]{1,4}|(?:[A-Z]\.-?){1,4}|(?:[A-Z]\.-?){1,3}[A-Z]"


def one_name(raw: str) -> str | None:
    """One author as written -> ``"Family Initials"``: ``Tkaczyk D``, ``Tkaczyk, D.``,
    ``D. Tkaczyk``, ``Dominika Tkaczyk``."""
    s = raw.strip(" .,;&")
    s = re.sub(r"^(?:and|&)\s+", "", s, flags=re.I).strip()
    if not s or ETAL.fullmatch(s) or len(s) > 80:
        return None
    if "," in s:
        family, given = s.split(",", 1)
        return name_family_first(family, given)
    words = re.sub(r"\s+(?:Jr|Sr|II|III|IV|2nd|3rd)\.?$", "", s).split()
    if len(words) == 1:
        return words[0]
    if len(words) >= 3 and not any(re.fullmatch(_INITIALS_WORD, w) or w.lower() in PARTICLES for w in words):
        return s  # a group author: "American Diabetes Association", "The Today Study Group"
    # Vancouver: "Tkaczyk D", "Walker-Smith JA", "van der Berg J"; Frontiers: "Braff D. L."
    i = len(words)
    while i > 1 and re.fullmatch(_INITIALS_WORD, words[i - 1]):
        i -= 1
    if i < len(words):
        return name_family_first(" ".join(words[:i]), " ".join(words[i:]))
    # "D. Tkaczyk", "D.-J. Kim", "Dominika Tkaczyk": the last word (with particles) is the family
    i = len(words) - 1
    while i > 0 and words[i - 1].lower() in PARTICLES:
        i -= 1
    return name_family_first(" ".join(words[i:]), " ".join(words[:i]))


def is_initials(part: str) -> bool:
    """``D.``, ``P. J.``, ``S.-J.``, ``Ł``, ``JA``: initials only (upper-case letters, dots, hyphens)."""
    p = part.strip()
    if not p or len(p) > 10:
        return False
    letters = [c for c in p if c.isalpha()]
    return (
        bool(letters)
        and all(c.isupper() for c in letters)
        and all(c.isalpha() or c in ". -" for c in p)
        and ("." in p or len(letters) <= 3)
    )


def _is_given(part: str) -> bool:
    """Given names written out ("Isabel", "Lee Palmer", "Mary J."): capitalised words, no family
    name with its initials ("Smith J")."""
    words = part.split()
    return (
        1 <= len(words) <= 3
        and all(w[0].isupper() for w in words)
        and not is_initials(words[-1].rstrip(".") if len(words) > 1 and len(words[-1]) > 2 else "x")
        and not (len(words) > 1 and re.fullmatch(r"[A-Z]{1,4}", words[-1]))
    )


def parse_authors(segment: str) -> list[str]:
    """An author segment in any common style -> ``"Family Initials"`` names."""
    s = ETAL.sub("", segment).strip(" .,;")
    if not s:
        return []
    if ";" in s:  # ACS, RSC: "Stahl, H.; Appenzeller, J.; & Martel, R." -- each piece one name
        return [n for p in s.split(";") if (n := one_name(p)) is not None]
    s = re.sub(r"\s+(?:and|&)\s+", ", ", s)
    parts = [p.strip() for p in s.split(",") if p.strip()]
    if len(parts) >= 2 and (is_initials(parts[1]) or (" " not in parts[0] and _is_given(parts[1]))):
        # APA/Harvard: "Tkaczyk, D., Szostek, P." -> pairs of family, initials; MLA/Chicago with
        # given names written out: "Reynolds, Isabel and Nobuhiro, Emi"
        names, i = [], 0
        while i < len(parts):
            nxt = parts[i + 1] if i + 1 < len(parts) else ""
            if nxt and (is_initials(nxt) or (" " not in parts[i] and _is_given(nxt))):
                names.append(name_family_first(parts[i], parts[i + 1]))
                i += 2
            else:
                if (n := one_name(parts[i])) is not None:
                    names.append(n)
                i += 1
        return names
    return [n for p in re.split(r"\s*[,;]\s*", s) if (n := one_name(p)) is not None]
