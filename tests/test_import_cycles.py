"""The import-cycle report (pyjax.tools.import_cycles): its graph and its
strongly connected components, and the cycles the layering forbids."""

from pyjax.tools import import_cycles


def test_cycles_are_the_strongly_connected_components():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}, "g": set()}
    assert import_cycles.cycles(graph) == [["a", "b", "c"], ["d", "e"]]


def test_graph_sees_lazy_imports_only_when_asked():
    eager = import_cycles.import_graph()
    lazy = import_cycles.import_graph(lazy=True)
    # stages imports jit inside its methods only.
    assert "pyjax._src.jit" not in eager["pyjax._src.stages"]
    assert "pyjax._src.jit" in lazy["pyjax._src.stages"]
    # Importing a module of a package runs the package first.
    assert "pyjax._src.interpreters" in eager["pyjax._src.jit"]
    assert all(eager[m] <= lazy[m] for m in eager)


def test_report_names_sizes_and_members():
    text = import_cycles.report()
    assert text.splitlines()[0].endswith("import cycle(s) among module-level imports of pyjax._src")
