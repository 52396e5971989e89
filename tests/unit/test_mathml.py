"""The one MathML flattener (core/mathml.py) that the JATS and PubMed readers share."""

from __future__ import annotations

import pytest

from medlit.core.jats.reader import read_jats
from medlit.core.mathml import flatten_mathml, to_subscript, to_superscript
from medlit.core.xml import parse_xml
from medlit.plugins.ncbi.parse.pubmed import render_text

NS = 'xmlns:mml="http://www.w3.org/1998/Math/MathML"'


def _flat(body: str, **kwargs: str) -> str:
    return flatten_mathml(parse_xml(f"<mml:math {NS}>{body}</mml:math>".encode()), **kwargs)


def mi(x: str) -> str:
    return f"<mml:mi>{x}</mml:mi>"


def mn(x: str) -> str:
    return f"<mml:mn>{x}</mml:mn>"


def mo(x: str) -> str:
    return f"<mml:mo>{x}</mml:mo>"


def row(*items: str) -> str:
    return "<mml:mrow>" + "".join(items) + "</mml:mrow>"


HELIUM = (
    f"<mml:mmultiscripts>{mi('He')}<mml:mprescripts/><mml:none/>{mn('3')}</mml:mmultiscripts>"
    f"{mo('/')}<mml:mmultiscripts>{mi('Xe')}<mml:mprescripts/><mml:none/>{mn('129')}</mml:mmultiscripts>"
    f"<mml:mtext> </mml:mtext>{mi('MRI')}"
)


@pytest.mark.parametrize(
    ("body", "caret", "unicode"),
    [
        # scripts: a single token bare, anything longer grouped, nothing spaced inside
        (f"<mml:msup>{mi('x')}{mn('2')}</mml:msup>", "x^2", "x²"),
        (f"<mml:msub>{mi('y')}{mi('i')}</mml:msub>", "y_i", "y_i"),
        (f"<mml:msup>{mi('x')}{row(mi('a'), mo('+'), mi('b'))}</mml:msup>", "x^(a+b)", "x^(a+b)"),
        (f"<mml:msup>{mi('10')}{row(mo('−'), mn('6'))}</mml:msup>", "10^(−6)", "10⁻⁶"),
        (
            f"<mml:msubsup><mml:mtext>R</mml:mtext><mml:mtext>pre</mml:mtext>{mn('2')}</mml:msubsup>",
            "R_pre^2",
            "R_pre²",
        ),
        # prescripts come before their base (isotopes), and a lone space mtext is kept
        (HELIUM, "^3He/^129Xe MRI", "³He/¹²⁹Xe MRI"),
        # under/over scripts read like sub/superscripts; an accent is appended
        (
            f"<mml:munderover>{mo('∑')}{row(mi('i'), mo('='), mn('1'))}{mi('n')}</mml:munderover>",
            "∑_(i=1)^n",
            "∑_(i=1)ⁿ",
        ),
        (f"<mml:mover accent='true'>{mi('x')}{mo('¯')}</mml:mover>", "x¯", "x¯"),
        # fractions group both sides, so an invisible times cannot glue "2" onto the numerator
        (f"{mn('2')}{mo('&#x2062;')}<mml:mfrac>{mn('1')}{mi('x')}</mml:mfrac>", "2(1)/(x)", "2(1)/(x)"),
        # roots, fences, tables (a row's equation label is not a cell)
        (
            f"<mml:msqrt>{mi('z')}</mml:msqrt>{mo('+')}<mml:mroot>{mi('x')}{mn('3')}</mml:mroot>",
            "√(z) + √[3](x)",
            None,
        ),
        (f"<mml:mfenced open='[' close=')'>{mi('a')}{mi('b')}</mml:mfenced>", "[a,b)", None),
        (
            "<mml:mtable><mml:mlabeledtr><mml:mtd><mml:mtext>(1)</mml:mtext></mml:mtd>"
            f"<mml:mtd>{mi('a')}</mml:mtd><mml:mtd>{mi('b')}</mml:mtd></mml:mlabeledtr>"
            f"<mml:mtr><mml:mtd>{mi('c')}</mml:mtd><mml:mtd>{mi('d')}</mml:mtd></mml:mtr></mml:mtable>",
            "[a, b; c, d]",
            None,
        ),
        # what is not shown stays hidden; semantics shows its presentation child
        (f"{mi('a')}<mml:mphantom>{mi('q')}</mml:mphantom>{mo('=')}{mi('b')}", "a = b", None),
        (
            f"<mml:semantics>{mi('k')}<mml:annotation encoding='TeX'>k</mml:annotation></mml:semantics>",
            "k",
            None,
        ),
        (f"<mml:maction selection='2'>{mi('p')}{mi('q')}</mml:maction>", "q", None),
        (f"{mi('a')}<mml:mtext> and </mml:mtext>{mi('b')}", "a and b", None),
    ],
)
def test_flattening(body: str, caret: str, unicode: str | None) -> None:
    assert _flat(body) == caret
    assert _flat(body, scripts="unicode") == (unicode if unicode is not None else caret)


def test_alttext_when_nothing_renders_and_undeclared_prefixes() -> None:
    assert flatten_mathml(
        parse_xml(f'<mml:math {NS} alttext="E = mc^2"><mml:mphantom/></mml:math>'.encode())
    ) == ("E = mc^2")
    # a recovering parser keeps an undeclared prefix in the tag name
    recovered = parse_xml(
        b"<math><mml:msup><mml:mi>x</mml:mi><mml:mn>2</mml:mn></mml:msup></math>", recover=True
    )
    assert flatten_mathml(recovered) == "x^2"


def test_unicode_scripts_only_when_every_character_has_one() -> None:
    assert to_superscript("2+") == "²⁺" and to_subscript("12") == "₁₂"
    assert to_superscript("2a") is None and to_subscript("n") is None and to_superscript("") is None


def test_both_readers_flatten_the_same_formula_alike() -> None:
    """JATS writes its own <sup> as caret and PubMed as Unicode; each formula follows its reader's
    notation, and the structure (grouping, spacing, order of prescripts) is the same."""
    formula = f"<mml:math {NS}>{HELIUM}{mo('=')}<mml:mfrac>{mi('a')}{mi('b')}</mml:mfrac></mml:math>"
    jats = (
        f"<article {NS}><body><sec><title>M</title><p>See <inline-formula>{formula}</inline-formula>.</p>"
        "</sec></body></article>"
    )
    [article] = read_jats(jats.encode())
    assert "See ^3He/^129Xe MRI = (a)/(b)." in article.sections[0].text
    pubmed = parse_xml(f"<AbstractText {NS}>See {formula}.</AbstractText>".encode())
    assert render_text(pubmed) == "See ³He/¹²⁹Xe MRI = (a)/(b)."
