"""Own CSV series on the Data and Train pages: upload, columns, NaN policy, load notes, errors, training."""

import hashlib
import json

import numpy as np

from tests.app.conftest import all_done, jobs, run_until, texts
from tests.data.test_user_series import hourly


def _file(frame=None) -> tuple[str, bytes, str]:
    return "load.csv", (hourly() if frame is None else frame).to_csv(index=False).encode(), "text/csv"


def _with_gaps():
    frame = hourly()
    frame.loc[[10, 11], "Load"] = np.nan
    return frame


def test_the_data_page_asks_for_a_csv_then_plots_it_with_the_load_notes(open_page):
    at = open_page("pages/data.py")
    at.selectbox(key="data.dataset").set_value("csv").run()
    assert not at.exception and not at.error and "Upload a .csv file" in texts(at.info)
    at.file_uploader(key="data.upload.csv").set_value(_file(_with_gaps())).run()
    assert not at.exception and not at.error
    # The guesses: the date column is the time, the first numeric one the target.
    assert at.selectbox(key="data.upload.csv.time").value == "Date"
    assert at.selectbox(key="data.upload.csv.target").value == "Load"
    assert "Filled 2 missing Load value(s) by linear interpolation in time" in texts(at.info)
    at.multiselect(key="data.upload.csv.exogenous").set_value(["Temp", "Holiday"]).run()
    at.multiselect(key="data.upload.csv.known").set_value(["Holiday"]).run()
    at.radio(key="data.upload.csv.nan_policy").set_value("drop").run()
    assert not at.exception and not at.error
    assert "Dropped 2 row(s) with missing or infinite values (Load: 2)" in texts(at.info)
    layout = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]
    assert [layout[a]["title"]["text"] for a in ("yaxis", "yaxis2", "yaxis3")] == ["Load", "Temp", "Holiday"]
    assert list(at.dataframe[0].value.index) == ["Load", "Temp", "Holiday"]  # the summary statistics


def test_bad_files_and_choices_are_errors_not_tracebacks(open_page):
    at = open_page("pages/data.py")
    at.selectbox(key="data.dataset").set_value("csv").run()
    at.file_uploader(key="data.upload.csv").set_value(("ragged.csv", b"a,b\n1,2\n3\n", "text/csv")).run()
    assert not at.exception and "line 3, has a different number of values" in texts(at.error)
    bad = hourly().astype({"Date": object})
    bad.loc[5, "Date"] = "someday"
    at.file_uploader(key="data.upload.csv").set_value(_file(bad)).run()
    assert not at.exception and "row 6 holds 'someday'" in texts(at.error)
    at.file_uploader(key="data.upload.csv").set_value(_file()).run()
    at.selectbox(key="data.upload.csv.target").set_value("Holiday").run()
    at.selectbox(key="data.upload.csv.time").set_value("").run()
    at.selectbox(key="data.upload.csv.target").set_value("Date").run()
    assert not at.exception and "Column 'Date' (the target) is not numeric" in texts(at.error)


def test_the_train_page_trains_an_uploaded_series_pinned_by_its_hash(open_page, shakespeare_cache):
    at = open_page("pages/train.py")
    at.selectbox(key="train.dataset").set_value("csv").run()
    assert "needs a file: upload a .csv" in texts(at.error) and at.button(key="train.submit").disabled
    at.selectbox(key="train.model.forecast").set_value("arx").run()
    name, content, mime = _file(_with_gaps())
    at.file_uploader(key="train.upload.csv").set_value((name, content, mime)).run()
    at.multiselect(key="train.upload.csv.exogenous").set_value(["Temp"]).run()
    at.number_input(key="train.data.csv.horizon").set_value(100).run()
    assert "The horizon H = 100 steps is longer than the test split (60 of 400 rows" in texts(at.error)
    assert at.button(key="train.submit").disabled
    at.number_input(key="train.data.csv.horizon").set_value(6).run()
    assert not at.exception and not at.error and not at.button(key="train.submit").disabled
    assert "Filled 2 missing Load value(s)" in texts(at.info)  # shown before training
    digest = hashlib.sha256(content).hexdigest()
    spec = at.json[0].value
    assert f'"sha256": "{digest}"' in spec and '"target": "Load"' in spec and '"exogenous": "Temp"' in spec
    assert (shakespeare_cache.parents[1] / "uploads" / f"{digest}.csv").read_bytes() == content
    at.button(key="train.submit").click().run()
    run_until(at, all_done).run()
    assert jobs(at)[0].status == "completed", jobs(at)[0].error
    assert not at.exception and not at.error
