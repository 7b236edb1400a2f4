"""The listing commands answer without importing TensorFlow or Keras."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from seqlab.layers.recurrent.lstm import VARIANTS
from seqlab.models import get_architecture
from tests.cli_store import copy_run

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("command", ["datasets", "models", "presets", "runs"])
def test_listing_commands_never_import_tensorflow_or_keras(command, tmp_path, trained_run):
    copy_run(tmp_path / "runs", trained_run, "one")  # runs reads a real run, metrics and all
    env = {**os.environ, "PYTHONPATH": str(REPO), "SEQLAB_RUNS_DIR": str(tmp_path / "runs")}
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "seqlab", command, "--json"],
        capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    listing = json.loads(out.stdout)
    assert command != "runs" or [r["run_id"] for r in listing["runs"]] == ["one"]
    imported = {line.split("|")[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    assert "seqlab.cli" in imported  # the measurement saw the CLI's imports
    heavy = sorted(m for m in imported if m.split(".")[0] in ("tensorflow", "keras"))
    assert not heavy, heavy[:5]


def test_the_light_lstm_variant_choices_are_the_layers_variants():
    assert get_architecture("lstm").choices["variant"] == tuple(VARIANTS)
