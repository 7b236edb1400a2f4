"""No import circle among seqlab's modules, counting every import: at module level, inside functions and under
``TYPE_CHECKING``, relative ones resolved.

A circle makes the import order matter (a module half-run when another reads it) and ties modules that should
stand in layers; breaking one means moving the shared piece down, or passing an object where a name was looked up.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_files(root: Path) -> dict[str, Path]:
    """Every module of ``root/seqlab`` by dotted name (a package by its own name, from its ``__init__``)."""
    found = {}
    for path in (root / "seqlab").rglob("*.py"):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The seqlab modules module ``name`` imports: for ``from a.b import c``, ``a.b.c`` when it is a module, else
    ``a.b`` (the deepest module a dotted name reaches)."""

    def deepest(dotted: str) -> str | None:
        parts = dotted.split(".")
        while parts and ".".join(parts) not in modules:
            parts.pop()
        return ".".join(parts) or None

    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    targets = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            anchor = package[: len(package) - node.level + 1] if node.level else []
            base = ".".join(anchor + ([node.module] if node.module else []))
            targets += [f"{base}.{alias.name}" for alias in node.names]
    found = {deepest(t) for t in targets if t.split(".")[0] == "seqlab"}
    return found - {None, name}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without recursion)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    modules = module_files(root)
    return {name: imported(name, path, modules) for name, path in modules.items()}


def test_the_finder_sees_every_kind_of_import(tmp_path):
    package = tmp_path / "seqlab"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from seqlab.sub import b\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "b.py").write_text("def f():\n    from . import c\n")
    (package / "sub" / "c.py").write_text("from ..a import thing\nimport seqlab.sub.d\n")
    (package / "sub" / "d.py").write_text("import numpy\n")
    edges = import_graph(tmp_path)
    assert edges["seqlab.sub.c"] == {"seqlab.a", "seqlab.sub.d"}
    assert circles(edges) == [["seqlab.a", "seqlab.sub.b", "seqlab.sub.c"]]


def test_no_import_circle_among_seqlab_modules():
    found = circles(import_graph(ROOT))
    listed = "\n".join(f"circle of {len(c)}: {', '.join(c)}" for c in found)
    assert not found, f"seqlab's modules import each other in circles:\n{listed}"
