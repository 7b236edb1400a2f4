"""``python -m seqlab train --dataset csv:PATH``: the user's own series on the command line."""

import hashlib
import json

import pytest

from seqlab.runs import RunStore
from tests.data.test_user_series import hourly
from tests.test_cli import run_cli

COLUMNS = ["--set", "time=Date", "--set", "target=Load", "--set", "exogenous=Temp,Holiday"]


@pytest.fixture
def series(tmp_path):
    path = tmp_path / "load.csv"
    frame = hourly()
    frame.loc[100, "Load"] = None
    frame.to_csv(path, index=False)
    return path


def test_train_on_own_csv_records_the_file_its_hash_and_what_loading_changed(capsys, runs_dir, series):
    code, out, err = run_cli(capsys, "train", "--dataset", f"csv:{series}", "--model", "arx", *COLUMNS,
                             "--set", "lookback=24", "--set", "horizon=6", "--json")  # fmt: skip
    assert code == 0, err
    assert "note: Filled 1 missing Load value(s) by linear interpolation in time (at 2014-03-05 04:00)." in err
    result = json.loads(out.strip().splitlines()[-1])
    options = RunStore(runs_dir).read(result["run_id"]).spec["data_options"]
    assert options["path"] == str(series.resolve()) and options["file_name"] == "load.csv"
    assert options["sha256"] == hashlib.sha256(series.read_bytes()).hexdigest()
    assert (options["target"], options["exogenous"]) == ("Load", "Temp,Holiday") and result["task"] == "forecast"
    series.write_text(series.read_text().replace("2014-03-01 00:00", "2014-02-28 23:00"))
    code, _, err = run_cli(capsys, "train", "--dataset", "csv", "--model", "arx", *COLUMNS,
                           *[f"--set={key}={options[key]}" for key in ("path", "sha256", "file_name")])  # fmt: skip
    assert code == 2 and "'load.csv' changed since this spec was made" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "Choose the target column to forecast"),
        (["--set", "target=Demand"], "target: column(s) ['Demand'] are not in the file"),
        (["--set", "target=Load", "--set", "horizon=99", "--set", "lookback=1"], "longer than the test split"),
        (["--set", "target=Load", "--set", "time=Load"], "cannot also be the target or an exogenous input"),
        (["--set", "target=Date"], "Column 'Date' (the target) is not numeric: row 1 holds '2014-03-01 00:00'"),
    ],
)
def test_bad_own_csv_exits_2_with_one_line_and_writes_no_run(capsys, runs_dir, series, argv, message):
    code, _, err = run_cli(capsys, "train", "--dataset", f"csv:{series}", "--model", "arx", *argv)
    assert code == 2 and message in err
    assert err.strip().splitlines()[-1].startswith("error: ") and "Traceback" not in err
    assert not runs_dir.exists() or not any(runs_dir.iterdir())


def test_a_missing_csv_path_exits_2(capsys, runs_dir, tmp_path):
    code, _, err = run_cli(capsys, "train", "--dataset", f"csv:{tmp_path / 'gone.csv'}", "--model", "arx")
    assert code == 2 and "'" in err and "gone.csv' does not exist" in err
