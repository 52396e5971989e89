"""Train the reference reader's token model (issue 31) and write it into the package.

    pip install -e '.[train]'          # python-crfsuite, citeproc-py: training only
    python benchmarks/train_reference_model.py [--mirrors /work/.mirror] [--sources grobid,plos,csl]
                                               [--out plugins/references/reference_model.json]

The labelled references come from public repositories' snapshots (``reference_data.SOURCES``:
repository, commit, licence), read at run time, never committed. Each reference is read first by
the rule reader; its reading becomes features of the tokens (``sequence.rule_labels``) beside the
tokens' own shape, so the CRF learns when the rules' cut holds. The weights are written as JSON
(attribute -> label -> weight, and the label transitions) with the feature-set version, and
``REFERENCE_MODEL_PROVENANCE.md`` beside it names what it was trained on.

AnyStyle's sets and the shared corpus are never trained on: they are the held-out measures of
``bench_reference_reading.py``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

import pycrfsuite  # type: ignore[import-not-found]
import reference_data as rd

from medlit.plugins.references import sequence
from medlit.plugins.references.parse import parse_free_text

ROOT = Path(__file__).resolve().parents[1]


def instances(examples: list[rd.Labelled]) -> list[tuple[list[list[str]], list[str]]]:
    out = []
    for ex in examples:
        tokens = sequence.body_tokens(ex.text)
        if not tokens:
            continue
        rules = sequence.rule_labels(ex.text, tokens, parse_free_text(ex.text))
        out.append((sequence.features(tokens, rules), [ex.chars[t.start] for t in tokens]))
    return out


def export(model_file: str, out: Path, meta: dict[str, object]) -> None:
    tagger = pycrfsuite.Tagger()
    tagger.open(model_file)
    info = tagger.info()
    labels = list(sequence.LABELS)
    index = {lab: i for i, lab in enumerate(labels)}
    state: dict[str, dict[str, float]] = {}
    for (attr, label), w in info.state_features.items():
        if abs(w) >= 1e-3 and label in index:
            state.setdefault(attr, {})[str(index[label])] = round(w, 3)
    transitions = [[0.0] * len(labels) for _ in labels]
    for (a, b), w in info.transitions.items():
        if a in index and b in index:
            transitions[index[a]][index[b]] = round(w, 3)
    data = {
        "features_version": sequence.FEATURES_VERSION,
        "labels": labels,
        "transitions": transitions,
        "state": dict(sorted(state.items())),
        **meta,
    }
    out.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


def provenance(sources: list[str], counts: dict[str, int], out: Path, params: dict[str, object]) -> None:
    lines = [
        "# Provenance of reference_model.json",
        "",
        "The token model of the reference reader (`sequence.py`), trained by",
        "`benchmarks/train_reference_model.py` (python-crfsuite, L-BFGS; "
        + ", ".join(f"{k}={v}" for k, v in params.items())
        + "). The file holds weights keyed by token attributes (word forms, shapes, the rule reader's",
        "labels) learnt from these labelled references; no reference is reproduced in it.",
        "",
        "| source | repository @ commit | licence | what | references |",
        "|---|---|---|---|---:|",
    ]
    for s in sources:
        src = rd.SOURCES[s]
        lines.append(
            f"| {s} | `{src.repo}` @ `{src.commit[:12]}` | {src.licence} | {src.what} | {counts[s]} |"
        )
    lines += [
        "",
        "Never trained on (held out for `benchmarks/bench_reference_reading.py`): the shared corpus'",
        "published reference lists, AnyStyle's `res/parser/gold.xml` and `core.xml`, and one PLOS",
        "article in five and one CSL style in five (`reference_data.held_out`): the references of",
        "those articles rendered in those styles measure the model on house styles it never saw.",
        "",
        "CSL styles: Citation Style Language project, https://citationstyles.org/ (CC BY-SA 3.0).",
        "",
    ]
    out.write_text("\n".join(lines), encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirrors", default=str(rd.MIRRORS))
    ap.add_argument("--sources", default="grobid,plos,csl")
    ap.add_argument("--out", default=str(ROOT / "plugins" / "references" / "reference_model.json"))
    ap.add_argument("--c1", type=float, default=0.3)
    ap.add_argument("--c2", type=float, default=0.01)
    ap.add_argument("--iterations", type=int, default=150)
    ap.add_argument("--csl-styles", type=int, default=rd.CSL_STYLES)
    ap.add_argument("--csl-per-record", type=int, default=rd.CSL_PER_RECORD)
    args = ap.parse_args()
    rd.CSL_STYLES, rd.CSL_PER_RECORD = args.csl_styles, args.csl_per_record
    sources = args.sources.split(",")
    examples: list[rd.Labelled] = []
    counts = {}
    for s in sources:
        got = rd.load(s, Path(args.mirrors))
        counts[s] = len(got)
        examples += got
    random.Random(31).shuffle(examples)
    t0 = time.perf_counter()
    data = instances(examples)
    print(f"{len(data)} references, features in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    print(Counter(lab for _, y in data for lab in y), file=sys.stderr)
    trainer = pycrfsuite.Trainer(verbose=False)
    for x, y in data:
        trainer.append(x, y)
    params = {
        "c1": args.c1,
        "c2": args.c2,
        "max_iterations": args.iterations,
        "csl_styles": args.csl_styles,
        "csl_per_record": args.csl_per_record,
    }
    crf = {k: params[k] for k in ("c1", "c2", "max_iterations")}
    trainer.set_params({**crf, "feature.possible_transitions": True})
    model_file = str(Path(args.out).with_suffix(".crfsuite.tmp"))
    t0 = time.perf_counter()
    trainer.train(model_file)
    print(f"trained in {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    out = Path(args.out)
    meta = {"trained_on": {s: counts[s] for s in sources}, "params": params}
    export(model_file, out, meta)
    Path(model_file).unlink()
    provenance(sources, counts, out.with_name("REFERENCE_MODEL_PROVENANCE.md"), params)
    print(f"wrote {out} ({out.stat().st_size // 1024} KiB)", file=sys.stderr)


if __name__ == "__main__":
    main()
