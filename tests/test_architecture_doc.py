"""docs/architecture.md's checklist for a new family stays true: what it names exists, and every family's probe,
Inspect view and lesson view is registered where the checklist says (the one-line imports)."""

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
CHECKLIST = DOC[DOC.index("## Adding a family"):DOC.index("## Layout")]


def named_paths() -> list[str]:
    """The files and folders the checklist names in backticks, without the templates (``<family>``)."""
    return sorted({p for p in re.findall(r"`((?:seqlab|pages|tests|docs)/[\w/.]*)`", CHECKLIST)})


def named_objects() -> list[str]:
    """The dotted names the checklist gives (``seqlab.inspect.trace.register_probe``)."""
    return sorted({n for n in re.findall(r"`(seqlab(?:\.\w+)+)`", CHECKLIST)})


@pytest.mark.parametrize("path", named_paths())
def test_every_file_the_checklist_names_exists(path):
    assert (ROOT / path).exists(), f"docs/architecture.md names {path}, which does not exist"


@pytest.mark.parametrize("name", named_objects())
def test_every_module_and_object_the_checklist_names_exists(name):
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):  # the longest importable module, then attributes
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            assert hasattr(found, attribute), f"docs/architecture.md names {name}: no {attribute!r}"
            found = getattr(found, attribute)
        return
    pytest.fail(f"docs/architecture.md names {name}, which is no module")


def imported_modules(path: Path) -> set[str]:
    """The seqlab modules a file imports (``from seqlab.app import a, b`` gives both)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("seqlab"):
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def modules_calling(folder: str, marker: str) -> set[str]:
    """The modules of ``folder`` whose code registers through ``marker`` (a decorator, as a pattern)."""
    return {
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for path in (ROOT / folder).glob("*.py")
        if re.search(rf"^@{marker}", path.read_text(encoding="utf-8"), flags=re.M)
    }


@pytest.mark.parametrize(
    "folder, marker, importer",
    [
        ("seqlab/inspect", r"register_probe\(", "seqlab/inspect/__init__.py"),
        ("seqlab/app/inspect", r"view_for\(RESULT_VIEWS", "seqlab/app/__init__.py"),
        ("seqlab/app/lessons", r"lesson_view\(", "seqlab/app/__init__.py"),
    ],
)
def test_every_registering_module_is_imported_where_the_checklist_says(folder, marker, importer):
    registering = modules_calling(folder, marker) - {importer.removesuffix(".py").replace("/", ".")}
    registering -= {"seqlab.inspect.trace", "seqlab.app.inspect.inspect_view"}  # the registries' own modules
    assert registering, f"no module of {folder} registers with {marker}: the pattern is stale"
    missing = registering - imported_modules(ROOT / importer)
    assert not missing, f"{sorted(missing)} register with {marker} but {importer} does not import them"
