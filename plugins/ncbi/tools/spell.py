"""pubmed_spell_check: ESpell's corrections applied in place to the free-text words of a query."""

from __future__ import annotations

import difflib
import re

from pydantic import Field, field_validator

from medlit.core.plugin import ToolContext, ToolInput, ToolOutput, outputs, rendering

from ..inputs import check_query
from ..parse.eutils import parse_espell

# Fields whose values are searched as free text: ESpell's dictionary applies to them.
FREE_TEXT_TAGS = {
    "tiab",
    "ti",
    "ab",
    "tw",
    "title",
    "abstract",
    "title/abstract",
    "text word",
    "textword",
    "all",
    "all fields",
    "ot",
    "other term",
}
OPERATORS = {"AND", "OR", "NOT"}
_TOKEN = re.compile(r"\[[^\]]*\]|[^\W_](?:[\w'’-]*[^\W_])?|.", re.S)


class SpellCheckInput(ToolInput):
    query: str = Field(
        min_length=1,
        max_length=4000,
        description="PubMed query as you would search it. Example: 'alzhiemer diseese AND aged[mh]'.",
    )
    responseFormat: outputs.ResponseFormat = outputs.RESPONSE_FORMAT_FIELD

    _q = field_validator("query", mode="before")(lambda cls, v: check_query(v, "alzhiemer diseese"))


class SpellCorrection(ToolOutput):
    original: str
    corrected: str


class SpellCheckOutput(ToolOutput):
    original: str = Field(description="The query as given")
    corrected: str = Field(
        description="The query with ESpell's corrections applied in place; field tags, indexed-field values, "
        "operators, all-capital words and words with digits or non-ASCII letters kept. Same as original when "
        "hasSuggestion is false"
    )
    hasSuggestion: bool = Field(description="Whether at least one correction was applied")
    corrections: list[SpellCorrection] = Field(
        default_factory=list, description="Each word changed, in order"
    )
    espellSuggestion: str | None = Field(
        None,
        description="ESpell's own whole-query suggestion, unfiltered (lower-cased, may touch tagged values)",
    )


def _tag_name(token: str) -> str:
    return token[1:-1].split(":", 1)[0].strip().lower()


def _eligible_words(tokens: list[str]) -> dict[int, str]:
    """Token index -> word, for words ESpell may correct."""
    words: dict[int, str] = {}
    pending: list[int] = []
    for i, tok in enumerate(tokens):
        if tok.startswith("[") and tok.endswith("]") and len(tok) > 1:
            if _tag_name(tok) not in FREE_TEXT_TAGS:
                for j in pending:
                    words.pop(j, None)
            pending = []
            continue
        if tok in ("(", ")") or tok in OPERATORS:
            pending = []
            continue
        if not re.match(r"[^\W_]", tok):
            continue
        pending.append(i)
        if len(tok) > 1 and tok.isascii() and not any(c.isdigit() for c in tok) and not (tok.isupper()):
            words[i] = tok
    return words


def _match_case(original: str, corrected: str) -> str:
    if original[:1].isupper() and original[1:].islower():
        return corrected[:1].upper() + corrected[1:].lower()
    return corrected


def apply_corrections(query: str, suggestion: str) -> tuple[str, list[SpellCorrection]]:
    """Apply ESpell's word changes to the free-text words of ``query``, keeping everything else."""
    tokens = _TOKEN.findall(query)
    words_idx = [i for i, t in enumerate(tokens) if re.match(r"[^\W_]", t)]
    orig_words = [tokens[i].lower() for i in words_idx]
    corr_words = [t for t in _TOKEN.findall(suggestion) if re.match(r"[^\W_]", t)]
    eligible = _eligible_words(tokens)
    changes: list[SpellCorrection] = []
    matcher = difflib.SequenceMatcher(a=orig_words, b=[w.lower() for w in corr_words], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "replace" or i2 - i1 != j2 - j1:
            continue
        for k in range(i2 - i1):
            ti = words_idx[i1 + k]
            new = corr_words[j1 + k]
            old = tokens[ti]
            if ti not in eligible or old.lower() == new.lower() or not new.isascii():
                continue
            tokens[ti] = _match_case(old, new)
            changes.append(SpellCorrection(original=old, corrected=tokens[ti]))
    return "".join(tokens), changes


async def spell_check(args: SpellCheckInput, ctx: ToolContext) -> SpellCheckOutput:
    resp = await ctx.client("ncbi").get("espell.fcgi", {"db": "pubmed", "term": args.query}, expect="xml")
    result = parse_espell(resp.body)
    suggestion = result.corrected_query if result.changed else ""
    corrected, changes = apply_corrections(args.query, suggestion) if suggestion else (args.query, [])
    return SpellCheckOutput(
        original=args.query,
        corrected=corrected,
        hasSuggestion=bool(changes),
        corrections=changes,
        espellSuggestion=suggestion or None,
    )


def render_spell(out: SpellCheckOutput, args: SpellCheckInput) -> str:
    if args.responseFormat == "json":
        return rendering.as_json(out, "ncbi-espell")
    if not out.hasSuggestion:
        return "No correction; search the query as written."
    changes = ", ".join(f"{c.original} → {c.corrected}" for c in out.corrections)
    # The corrected words come from NCBI: fenced like any other upstream text.
    return "Suggested query (re-run pubmed_search_articles with it):\n" + rendering.fence(
        f"{out.corrected}\nChanged: {changes}", "ncbi-espell"
    )
