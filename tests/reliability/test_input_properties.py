"""Every tool's input model, probed as a hostile or careless caller would: generated from its own
JSON schema and mutated with adversarial values (markup, zero-width and control characters, huge
strings and lists, packed ids, unknown keys).

For every input: no crash (no plugin or internal error), no stack trace or file path in any
output, every refusal carries a reason, a hint and ``retryable``, a refused input sends nothing
upstream, and a refusal quotes at most a short prefix of the bad value. Seeds and example budgets
are fixed so CI stays fast and repeatable.
"""

from __future__ import annotations

import json
import re
import tempfile
from typing import Any

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from medlit.testing import Runtime, host_for

from support.fake_upstream import FakeUpstream
from support.listed import ListedTools

pytestmark = pytest.mark.anyio

EXAMPLES = 12  # per tool and property: ~25 tools x 2 properties stays under a minute
REFUSALS = {"invalid_argument", "blank_query", "invalid_date", "invalid_id", "provider_unavailable"}
LEAKS = re.compile(r"Traceback \(most recent|File \"/|site-packages|/work/|\.py\", line \d+")
ADVERSARIAL = [
    "<script>alert(1)</script>",
    "\u200b\u200c\u200d\ufeff",
    "a\x00b\x01c\x1b[31m",
    "x" * 1_000_000,
    "12345, 23456; 34567 PMC1 10.1000/abc",
    "]]>&lt;!ENTITY x SYSTEM 'file:///etc/passwd'>",
    "' OR 1=1 --",
    "${jndi:ldap://x}",
    "",
    " ",
]


HOST = host_for(env={})
TOOLS = ListedTools(HOST)  # the schemas are built by the first test, not at collection
DEFINITIONS = TOOLS.values()


def _resolve(schema: dict[str, Any]) -> dict[str, Any]:
    """Inline local $refs: hypothesis-jsonschema wants a self-contained schema."""
    defs = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return walk(defs[ref.split("/")[-1]])
            return {k: walk(v) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(schema)


def _walk_fields(schema: dict[str, Any], path: str = "") -> list[tuple[str, dict[str, Any]]]:
    out = []
    for name, spec in (schema.get("properties") or {}).items():
        out.append((f"{path}{name}", spec))
        for alt in spec.get("anyOf", []) + spec.get("oneOf", []):
            if alt.get("type") == "object":
                out += _walk_fields(alt, f"{path}{name}.")
        if spec.get("type") == "object":
            out += _walk_fields(spec, f"{path}{name}.")
    return out


def _kinds(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in [spec, *spec.get("anyOf", []), *spec.get("oneOf", [])] if s.get("type")]


def test_every_string_list_and_number_has_a_bound():
    """Strings carry maxLength (or an enum/const), lists maxItems, integers a maximum: nothing a
    caller sends is unbounded (a 1 MB author once came back as 5 MB of output)."""
    unbounded = []
    for d in DEFINITIONS:
        for name, spec in _walk_fields(_resolve(d.input_schema)):
            for kind in _kinds(spec):
                t = kind["type"]
                if t == "string" and not ({"maxLength", "enum", "const"} & kind.keys()):
                    unbounded.append(f"{d.name}.{name}: string without maxLength")
                elif t == "array":
                    if "maxItems" not in kind:
                        unbounded.append(f"{d.name}.{name}: list without maxItems")
                    items = kind.get("items") or {}
                    for it in _kinds(items):
                        if it["type"] == "string" and not ({"maxLength", "enum", "const"} & it.keys()):
                            unbounded.append(f"{d.name}.{name}[]: string without maxLength")
                elif t == "integer" and "maximum" not in kind and "exclusiveMaximum" not in kind:
                    unbounded.append(f"{d.name}.{name}: integer without maximum")
    assert not unbounded, "\n".join(unbounded)


class Probe:
    """One runtime against a fake that answers nothing useful: what matters is how tools behave."""

    def __init__(self) -> None:
        self.fake = FakeUpstream(ncbi_limit=None)

    async def __aenter__(self) -> Probe:
        await self.fake.start()
        self.tmp = tempfile.TemporaryDirectory(prefix="medlit-probe-")
        env = self.fake.env(
            MEDLIT_NCBI_RATE="1000",
            MEDLIT_MAX_RETRIES="0",
            MEDLIT_REQUEST_TIMEOUT="2",
            MEDLIT_CALL_DEADLINE="5",
            # The review tools keep sets and files: in a directory of the probe's own, never the user's.
            MEDLIT_STORE=f"sqlite:///{self.tmp.name}/review.db",
            MEDLIT_EXPORT_DIR=f"{self.tmp.name}/exports",
        )
        self.rt = Runtime(host_for(env=env))
        await self.rt.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.rt.__aexit__(*exc)
        await self.fake.stop()
        self.tmp.cleanup()

    async def check(self, tool: str, arguments: Any) -> None:
        before = len(self.fake.requests)
        out = await self.rt.call(tool, arguments)
        sent = len(self.fake.requests) - before
        text = out.text + json.dumps(out.data or {}) + json.dumps(out.error.to_dict() if out.error else {})
        assert not LEAKS.search(text), f"{tool}: stack trace or path in output: {LEAKS.search(text)}"
        if out.error is None:
            return
        err = out.error
        assert err.reason not in ("internal_error", "plugin_error"), (
            f"{tool} crashed on {arguments!r:.300}: {err.message}"
        )
        assert err.message and isinstance(err.retryable, bool)
        if err.reason in REFUSALS:
            assert err.recovery, f"{tool}: refusal without a hint: {err.message}"
            # A well-formed but unknown database name is known only from NCBI's own list (one request,
            # cached): the one refusal that may follow an upstream answer.
            if "valid_databases" not in err.details:
                assert sent == 0, f"{tool}: a refused input sent {sent} upstream request(s)"
            assert len(out.text) < 6000, f"{tool}: the refusal echoes {len(out.text)} characters"


def _mutations(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    fields = [n for n in (schema.get("properties") or {})]
    base = from_schema(schema)

    def mutate(draw_base: dict[str, Any], field: str, value: Any) -> dict[str, Any]:
        out = dict(draw_base)
        out[field] = value
        return out

    values = st.one_of(
        st.sampled_from(ADVERSARIAL),
        st.lists(st.sampled_from(["1", "PMC2", "10.1/x", "<b>", "\x00"]), min_size=0, max_size=3),
        st.just(["1"] * 10_000),
        st.integers(min_value=-(10**30), max_value=10**30),
        st.none(),
        st.just({"nested": {"deep": [1, 2, 3]}}),
    )
    if not fields:
        return st.builds(lambda v: {"unknown_key": v}, values)
    return st.one_of(
        st.builds(mutate, base, st.sampled_from(fields), values),
        st.builds(lambda b, v: {**b, "unknownKey": v}, base, values),
    )


@pytest.mark.parametrize("tool", sorted(HOST.tools))
async def test_schema_valid_inputs_never_crash(tool):
    schema = _resolve(TOOLS[tool].input_schema)
    examples: list[dict[str, Any]] = []

    @seed(20261201)
    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(from_schema(schema))
    def collect(args: dict[str, Any]) -> None:
        examples.append(args)

    collect()
    assert len(examples) >= 3  # the schema generates inputs at all
    async with Probe() as probe:
        for args in examples:
            await probe.check(tool, args)


@pytest.mark.parametrize("tool", sorted(HOST.tools))
async def test_adversarial_inputs_are_refused_cleanly(tool):
    schema = _resolve(TOOLS[tool].input_schema)
    examples: list[dict[str, Any]] = []

    @seed(20261202)
    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(_mutations(schema))
    def collect(args: dict[str, Any]) -> None:
        examples.append(args)

    collect()
    assert len(examples) >= 3
    async with Probe() as probe:
        for args in examples:
            await probe.check(tool, args)
        for junk in ([], None, "pmid 123", 42, {"": 1}):
            await probe.check(tool, junk)
