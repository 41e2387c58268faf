"""The rule-coverage table: every primitive has abstract evaluation and a
NumPy impl; the table prints and counts them."""

from pyjax.tools import coverage


def test_every_primitive_has_abstract_eval_and_numpy_impl():
    header, rows = coverage.table()
    ae = header.index("abstract_eval")
    impl = header.index("impl:numpy")
    missing = [row[0] for row in rows if row[ae] != "rule" or row[impl] != "rule"]
    assert not missing, f"primitives without abstract_eval or NumPy impl: {missing}"


def test_table_lists_the_core_primitives(capsys):
    coverage.main([])
    out = capsys.readouterr().out
    for name in ("add", "dot_general", "reduce_sum", "broadcast_in_dim", "jit", "custom_jvp_call"):
        assert any(line.split()[0] == name for line in out.splitlines() if line.strip())
    assert "impl:numpy" in out and "primitives" in out
