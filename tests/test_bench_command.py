"""``python -m seqlab bench``: one table of seqlab beside its peers, written as CSV and JSON; a peer that is not
installed is a skipped row with the reason, never an error."""

import csv
import json

import pytest

from bench import run as bench
from seqlab.cli import main


def test_quick_row_prints_and_writes_csv_and_json(tmp_path, capsys):
    assert main(["bench", "--quick", "--only", "hmm_baum_welch", "--results", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("hmm_baum_welch"))
    seqlab_s, peer_s, ratio = line.split()[1:4]
    assert float(ratio.rstrip("x")) == pytest.approx(float(seqlab_s) / float(peer_s), rel=0.01)
    assert "hmmlearn: python -m bench.hmm_baum_welch --states 8 --chars 5000 --length 500 --iterations 5" in line
    (written_csv,), (written_json,) = tmp_path.glob("*.csv"), tmp_path.glob("*.json")
    row = next(csv.DictReader(written_csv.open()))
    assert row["name"] == "hmm_baum_welch" and float(row["seqlab"]) > 0 and float(row["peer_figure"]) > 0
    saved = json.loads(written_json.read_text())
    assert saved["quick"] is True and [r["name"] for r in saved["rows"]] == ["hmm_baum_welch"]
    assert saved["rows"][0]["skipped"] is None and saved["rows"][0]["ratio"] == pytest.approx(
        saved["rows"][0]["seqlab"] / saved["rows"][0]["peer_figure"])


def test_a_missing_peer_is_a_skipped_row_and_an_unknown_row_a_clear_error(tmp_path, capsys, monkeypatch):
    def never(quick):
        raise AssertionError("a row whose peer is missing must not be measured")

    row = bench.Row("absent_peer", "a figure", "a peer", "lower", "bench.nothing", never, needs="no_such_peer_pkg")
    monkeypatch.setattr(bench, "ROWS", (row,))
    assert main(["bench", "--quick", "--results", str(tmp_path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["rows"][0]["skipped"] == "no_such_peer_pkg is not installed (pip install -r bench/requirements.txt)"
    assert result["rows"][0]["seqlab"] is None and len(result["written"]) == 2
    assert main(["bench", "--only", "nope", "--results", str(tmp_path)]) == 2
    assert "Unknown bench row 'nope'; rows: absent_peer." in capsys.readouterr().err
