"""Run Python in a fresh process that has TensorFlow but never imports seqlab: how a SavedModel is served."""

import json
import subprocess
import sys


def without_seqlab(script: str, cwd) -> dict:
    """Run ``script`` (it prints one JSON object last) in a bare environment; the object, plus ``seqlab``:
    whether seqlab got imported."""
    script += '\nimport sys as _sys, json as _json\nprint(_json.dumps({"seqlab": "seqlab" in _sys.modules}))\n'
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=cwd,
                          timeout=120, env={"PATH": "/usr/bin:/bin", "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert done.returncode == 0, done.stderr[-2000:]
    *_, result, imported = done.stdout.strip().splitlines()
    return {**json.loads(result), **json.loads(imported)}
