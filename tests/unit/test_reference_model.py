"""The reference reader's trained token model (``sequence.py``): the shipped weights carry the
feature set this module computes, load on first use, decode as a linear-chain CRF does, and, with
the rules' reading among their features, read references the rules alone misread (written for
these tests in the styles issue 31 lists)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from medlit.plugins.references import sequence
from medlit.plugins.references.parse import parse_free_text, parse_reference
from medlit.plugins.references.stated import StatedReference

SAMPLES = [
    "12. Okafor CN, Lindqvist P. Gait variability (a cohort) in older adults. J Gerontol. 2015;12(3):210-8.",
    '[3] A. Novak, "Wearable sensors for tremor," IEEE J. Biomed. Health Inform., vol. 24, pp. 1440-9, 2020.',
    "Kovacs, E. and Dube, J. (2014) ‘Early mobilisation’, Crit Care Med, 42, pp. 1178–1186.",
]


def _prefix(attribute: str) -> str:
    return attribute.split("=", 1)[0] if "=" in attribute else attribute


def test_the_shipped_model_is_stamped_with_this_feature_set() -> None:
    data = json.loads(sequence.MODEL_PATH.read_text(encoding="utf-8"))
    assert data["features_version"] == sequence.FEATURES_VERSION
    assert tuple(data["labels"]) == sequence.LABELS
    assert [len(row) for row in data["transitions"]] == [len(sequence.LABELS)] * len(sequence.LABELS)
    computed: set[str] = set()
    for text in SAMPLES:
        tokens = sequence.body_tokens(text)
        rules = sequence.rule_labels(text, tokens, parse_free_text(text))
        for feats in sequence.features(tokens, rules):
            computed |= {_prefix(a) for a in feats}
    # every kind of attribute the weights know is one this module computes (edge-2 and the like
    # included), and what it computes is mostly known to the weights
    assert {_prefix(a) for a in data["state"]} <= computed
    tokens = sequence.body_tokens(SAMPLES[0])
    feats = sequence.features(tokens, ["none"] * len(tokens))
    known = sum(a in data["state"] for f in feats for a in f)
    assert known > 0.5 * sum(len(f) for f in feats)


def test_a_model_of_another_feature_set_is_refused(tmp_path: Path) -> None:
    data = json.loads(sequence.MODEL_PATH.read_text(encoding="utf-8"))
    data["features_version"] = sequence.FEATURES_VERSION + 1
    stale = tmp_path / "reference_model.json"
    stale.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(sequence.ModelMismatch, match="retrain"):
        sequence.load_model(stale)


def test_viterbi_weighs_transitions_against_emissions() -> None:
    emissions = {"x": ((0, 1.0),), "y": ((1, 3.0),)}
    free = sequence.Model(("a", "b"), [[0.0, 0.0], [0.0, 0.0]], emissions)
    assert free.tag([["x"], ["x"], ["y"]]) == ["a", "a", "b"]
    # switching label costs 5: staying on b (0 + 0 + 3) beats a, a, b (1 + 1 - 5 + 3) and a, a, a (2)
    sticky = sequence.Model(("a", "b"), [[0.0, -5.0], [-5.0, 0.0]], emissions)
    assert sticky.tag([["x"], ["x"], ["y"]]) == ["b", "b", "b"]
    assert sticky.tag([]) == []


def test_the_model_is_read_on_first_use_not_at_import() -> None:
    code = (
        "import sys\n"
        "from medlit.plugins.references.parse import parse_reference\n"
        "name = 'medlit.plugins.references.sequence'\n"
        "print(name in sys.modules)\n"
        "parse_reference('Watson JD, Crick FH. Molecular structure of nucleic acids. Nature. 1953;171:737-8.')\n"
        "print(sys.modules[name].shipped_model.cache_info().currsize)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "1"]


# (reference, field, what the rules alone read, what the rules checked by the model read)
RULES_MISREAD = [
    (  # a Vancouver-like date with no semicolon: the rules read the year as the journal
        "Okafor CN, Lindqvist P. Gait variability in older adults walking on uneven ground. "
        "Journal of gerontology. 2015 12(3) 210-8.",
        "journal",
        "Journal of gerontology",
    ),
    (  # a month written out before the year runs into the journal
        "Brandt KL, Osei-Bonsu E, Nakamura T. Home exercise after total knee arthroplasty: a pilot trial. "
        "Physiother Res. March 2016 21(4) 301-309.",
        "journal",
        "Physiother Res",
    ),
    (  # Elsevier's numbered style, names given first and a comma before the title and journal
        "[12] A. Novak, B. Ferreira, Wearable sensors for tremor monitoring in Parkinson disease, "
        "IEEE J. Biomed. Health Inform. 24 (2020) 1440-1449.",
        "title",
        "Wearable sensors for tremor monitoring in Parkinson disease",
    ),
]


@pytest.mark.parametrize(("text", "field", "expected"), RULES_MISREAD)
def test_the_model_corrects_what_the_rules_misread(text: str, field: str, expected: str) -> None:
    assert getattr(parse_free_text(text), field) != expected
    assert getattr(parse_reference(text), field) == expected


def test_the_rules_reading_stands_where_the_model_agrees() -> None:
    text = (
        "Lindgren S, Patel R, Okoye U. Vitamin D status in pregnancy and childhood asthma. "
        "Am J Epidemiol. 2017 Jun;185(11):1021-1029. doi:10.1093/aje/kwx001"
    )
    ref = parse_reference(text)
    assert (ref.authors[0], ref.title, ref.journal, ref.year) == (
        "Lindgren S",
        "Vitamin D status in pregnancy and childhood asthma",
        "Am J Epidemiol",
        2017,
    )
    assert (ref.volume, ref.issue, ref.first_page, ref.last_page) == ("185", "11", "1021", "1029")
    assert ref.doi == "10.1093/aje/kwx001"


def test_a_line_longer_than_any_reference_keeps_the_rules_reading() -> None:
    text = "Smith J. " + "word " * (sequence.MAX_TOKENS + 10) + "Nature 2020;1:1."
    rules = parse_free_text(text)
    assert sequence.read_with_model(text, rules) is rules


def _votes(p_title: float) -> np.ndarray:
    """Marginals for four tokens: the model puts tokens 2-3 in the title with probability p."""
    p = np.zeros((4, len(sequence.LABELS)))
    t, o = sequence.LABELS.index("title"), sequence.LABELS.index("other")
    p[:, o] = 1.0
    for i in (2, 3):
        p[i, t], p[i, o] = p_title, 1 - p_title
    return p


@pytest.mark.parametrize(("p_title", "taken"), [(0.95, "model"), (0.85, "rules"), (0.6, "rules")])
def test_the_model_overrides_a_field_only_when_sure_of_the_tokens_in_dispute(
    p_title: float, taken: str
) -> None:
    rules = StatedReference(title="Gait", journal="Gerontology")
    model = StatedReference(title="Gait variability", journal="Gerontology")
    rule_tags = ["title", "other", "other", "other"]
    model_tags = ["title", "other", "title", "title"]
    out = sequence.combine(rules, model, rule_tags, model_tags, lambda: _votes(p_title), margin=0.4)
    # mean vote over the two disputed tokens is p - 0.5: above 0.4 only when p > 0.9
    assert out.title == ("Gait variability" if taken == "model" else "Gait")
    assert out.journal == "Gerontology"


def test_a_field_the_rules_left_empty_is_the_models() -> None:
    def never() -> np.ndarray:
        raise AssertionError("no vote is needed where the rules read nothing")

    out = sequence.combine(
        StatedReference(title="Gait", volume=None),
        StatedReference(title="Gait", volume="12"),
        ["title", "other"],
        ["title", "volume"],
        never,
    )
    assert (out.title, out.volume) == ("Gait", "12")
