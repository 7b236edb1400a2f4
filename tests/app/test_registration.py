"""Which views exist never depends on which page ran first: importing ``seqlab.app`` alone registers them all."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# In a fresh interpreter: every registry of the app after ``import seqlab.app``, then after importing every
# module of seqlab/app found on disk. A view module the package does not import shows as a difference.
SCRIPT = """
import importlib, json, pathlib, sys
import seqlab.app
from seqlab.registry import Registry

def registries():
    found = {}
    for name, module in list(sys.modules.items()):
        if name.startswith("seqlab.app"):
            for attr, value in vars(module).items():
                if isinstance(value, Registry):
                    found[f"{value.kind}"] = sorted(value.names())
    return found

alone = registries()
root = pathlib.Path(seqlab.app.__file__).parent
for path in sorted(root.rglob("*.py")):
    parts = path.relative_to(root.parent.parent).with_suffix("").parts
    importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
print(json.dumps({"alone": alone, "every_module": registries()}))
"""


def test_importing_the_package_registers_every_view_on_disk():
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    found = json.loads(out.stdout.strip().splitlines()[-1])
    alone, every = found["alone"], found["every_module"]
    for kind in ("prediction view", "serving view", "inspect result view", "lesson view", "file upload"):
        assert every.get(kind), f"no {kind} registered at all: the check is stale"
    missing = {kind: sorted(set(names) - set(alone.get(kind, ()))) for kind, names in every.items()}
    assert alone == every, f"registered only when their module is imported by a page: {missing}"
