"""Screening decisions an export carries in its notes, read back: our own
``MEDLIT-DECISION: {json}`` lines (every stage, reviewer, category and reason; see
``exports.decision_notes``), else Rayyan's convention (``RAYYAN-INCLUSION: {"alice"=>"Included",
"bob"=>"Excluded"}`` with ``RAYYAN-EXCLUSION-REASONS: wrong population,...``), which gives the
title/abstract stage. Values are taken as written; the import checks them against the screening
vocabulary before it stores any."""

from __future__ import annotations

import json
import re

OURS = "MEDLIT-DECISION:"
OURS_OR_RAYYAN = re.compile(r"MEDLIT-DECISION:|RAYYAN-INCLUSION:")
_RAYYAN = re.compile(r"RAYYAN-INCLUSION:\s*\{([^}]*)\}")
_RAYYAN_VOTE = re.compile(r'"((?:[^"\\]|\\.)*)"\s*=>\s*"(Included|Excluded|Maybe)"')
_RAYYAN_REASONS = re.compile(r"RAYYAN-EXCLUSION-REASONS:\s*([^|\n;]*)")
_RAYYAN_WORDS = {"Included": "include", "Excluded": "exclude", "Maybe": "maybe"}
MAX_CARRIED = 50  # decisions one record's notes may carry: reviewers times two stages, with room

Carried = dict[str, str]


def decisions_in(text: str | None) -> list[Carried]:
    """The decisions ``text`` carries (``stage``, ``decision``, ``reviewer`` and, when given,
    ``category`` and ``reason``), ours first; none when it carries none."""
    if not text:
        return []
    ours = _ours(text)
    return ours if ours else _rayyan(text)


def _ours(text: str) -> list[Carried]:
    out: list[Carried] = []
    decoder = json.JSONDecoder()
    start = text.find(OURS)
    while start >= 0 and len(out) < MAX_CARRIED:
        body = text[start + len(OURS) :].lstrip()
        try:
            value, _ = decoder.raw_decode(body)
        except ValueError:
            value = None
        if isinstance(value, dict):
            item = {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}
            if {"stage", "decision", "reviewer"} <= item.keys():
                out.append(item)
        start = text.find(OURS, start + len(OURS))
    return out


def _rayyan(text: str) -> list[Carried]:
    match = _RAYYAN.search(text)
    if not match:
        return []
    reasons = _RAYYAN_REASONS.search(text)
    reason = reasons.group(1).strip() if reasons else ""
    out: list[Carried] = []
    for reviewer, word in _RAYYAN_VOTE.findall(match.group(1))[:MAX_CARRIED]:
        item = {"stage": "title_abstract", "decision": _RAYYAN_WORDS[word], "reviewer": reviewer}
        if word == "Excluded" and reason:
            item["reason"] = reason
        out.append(item)
    return out
