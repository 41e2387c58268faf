"""The jax.numpy coverage report: pyjax.numpy against JAX 0.11's recorded
namespace (tests/golden/jnp_names.json), its target, and the committed
docs/jnp_coverage.md being the script's current output."""

from __future__ import annotations

from pathlib import Path

from pyjax.tools import jnp_coverage

ROOT = Path(__file__).resolve().parents[2]


def test_reference_list_is_jax_0_11():
    reference = jnp_coverage.load_reference()
    assert reference["jax_version"] == "0.11.0"
    assert len(reference["namespaces"]["jax.numpy"]) == 416
    assert reference["namespaces"]["jax.numpy"]["einsum"] == "function"
    assert reference["namespaces"]["jax.numpy"]["linalg"] == "module"


def test_coverage_meets_the_target():
    result = jnp_coverage.compare(jnp_coverage.load_reference())
    done, total = jnp_coverage.totals(result)
    assert done / total >= 0.9, f"jax.numpy coverage {done}/{total} is below 90%"
    assert not result["jax.numpy"]["mismatched"], result["jax.numpy"]["mismatched"]


def test_report_lists_missing_names(tmp_path, capsys):
    # A name JAX has and pyjax lacks is reported as missing (and a kind clash as mismatched).
    reference = {"jax_version": "0.11.0", "namespaces": {"jax.numpy": {
        "add": "function", "no_such_function": "function", "pi": "function"}}}
    names = tmp_path / "names.json"
    names.write_text(__import__("json").dumps(reference))
    jnp_coverage.main(["--names", str(names)])
    out = capsys.readouterr().out
    assert "jax.numpy: 1/3 implemented (33.3%)" in out
    assert "missing: no_such_function" in out
    assert "mismatched: pi (JAX: function, pyjax: value)" in out


def test_committed_report_is_current(capsys):
    # Regenerate with `python -m pyjax.tools.jnp_coverage --markdown > docs/jnp_coverage.md`.
    jnp_coverage.main(["--markdown"])
    committed = (ROOT / "docs" / "jnp_coverage.md").read_text()
    assert committed == capsys.readouterr().out, "docs/jnp_coverage.md is stale: regenerate it"
