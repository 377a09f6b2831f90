"""The package's modules import each other in one direction only (no cycles, counting imports
inside functions too), and the core never imports the viz or widget libraries."""
import ast
import pathlib

import autogradlab

ROOT = pathlib.Path(autogradlab.__file__).parent


def _modules():
    mods = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        mods[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return mods


def import_graph():
    """module -> the package modules it imports anywhere in its source (``from . import x`` counts
    as importing ``x``, not the package)."""
    mods = _modules()
    graph = {m: set() for m in mods}
    for name, (path, is_pkg) in mods.items():
        package = name if is_pkg else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")
                base = base[:len(base) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else [])) if node.level else node.module
                found = [f"{target}.{a.name}" if f"{target}.{a.name}" in mods else target for a in node.names]
            elif isinstance(node, ast.Import):
                found = [a.name for a in node.names]
            else:
                continue
            graph[name].update(m for m in found if m in mods and m != name)
    return graph


def _cycle(graph):
    """One import cycle as a list of modules, or None."""
    state = {}

    for start in sorted(graph):
        if start in state:
            continue
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        state[start] = "open"
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                state[node] = "done"
            elif state.get(child) == "open":
                return path[path.index(child):] + [child]
            elif child not in state:
                state[child] = "open"
                path.append(child)
                stack.append((child, iter(sorted(graph[child]))))
    return None


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycles_below_the_viz():
    """The engine's layers (everything but the viz package, which only reads events and is
    never imported by them) form no cycle."""
    graph = import_graph()
    assert "autogradlab.tensor" in graph and "autogradlab.engine" in graph["autogradlab.events.tracing"]
    core = {m: {c for c in deps if not c.startswith("autogradlab.viz")}
            for m, deps in graph.items() if not m.startswith("autogradlab.viz")}
    assert _cycle(core) is None


def test_core_modules_import_nothing_above_them():
    graph = import_graph()
    assert graph["autogradlab.tensor"] <= {"autogradlab.backend", "autogradlab.printing", "autogradlab.grad_mode"}
    assert graph["autogradlab.printing"] == set()   # (how values print: NumPy only)
    assert graph["autogradlab.grad_mode"] == set()   # (the grad-mode flags: the standard library only)
    events = [m for m in graph if m == "autogradlab.events" or m.startswith("autogradlab.events.")]
    assert len(events) > 1 and not any(d.startswith("autogradlab.viz") for m in events for d in graph[m])
    for core in ("tensor", "graph", "engine", "events", "ops.registry", "backend"):
        assert not any(m.startswith(("autogradlab.viz", "autogradlab.nn", "autogradlab.lessons"))
                       for m in graph[f"autogradlab.{core}"]), core
