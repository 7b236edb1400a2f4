import json

import pytest

from seqlab.data import list_datasets

# Numeric datasets; text ones (a tokenizer option): tests/app/test_data_text.py;
# own files (a path option): test_text_upload.py, test_csv_upload.py.
DATASETS = [d.name for d in list_datasets() if "tokenizer" not in d.defaults and "path" not in d.defaults]


def _spec(at, i=0) -> dict:
    return json.loads(at.get("plotly_chart")[i].proto.spec)


@pytest.mark.parametrize("name", DATASETS)
def test_every_dataset_renders_a_chart_and_statistics(open_page, name):
    at = open_page("pages/data.py")
    at.selectbox(key="data.dataset").set_value(name).run()
    assert not at.exception
    assert not at.error
    assert len(at.get("plotly_chart")) == 1
    assert len(at.dataframe) == 1  # summary statistics
    assert "unit" in at.dataframe[0].value.columns


def test_energy_preview_has_units_on_own_axes_and_splits(open_page):
    at = open_page("pages/data.py")
    at.selectbox(key="data.dataset").set_value("energy").run()
    layout = _spec(at)["layout"]
    assert layout["yaxis"]["title"]["text"] == "Demand (GW)"
    assert layout["yaxis2"]["title"]["text"] == "Temperature (°C)"
    assert layout["xaxis"]["rangeslider"]["visible"] is True
    labels = {a["text"] for a in layout["annotations"]}
    assert {"<b>train</b>", "<b>validation</b>", "<b>test</b>"} <= labels
    markdown = "\n".join(m.value for m in at.markdown)
    assert "Licence:" in markdown and "Source:" in markdown
