import json

import numpy as np
import pytest

from seqlab.data import list_datasets
from seqlab.data.digits import digits_samples
from tests.app.conftest import figure_array

# Numeric datasets; text ones (a learned embedding): tests/app/test_data_text.py and the test below;
# own files (a path option): test_text_upload.py, test_csv_upload.py, test_text_csv_upload.py;
# translation pairs: test_pairs_pages.py.
DATASETS = [d.name for d in list_datasets()
            if "embedding_dim" not in d.defaults and "path" not in d.defaults and d.task not in ("translate", "masked_lm")]


def _spec(at, i=0) -> dict:
    return json.loads(at.get("plotly_chart")[i].proto.spec)


@pytest.mark.parametrize("name", DATASETS)
def test_every_dataset_renders_a_chart_and_statistics(open_page, name):
    at = open_page("pages/data.py")
    at.selectbox(key="data.dataset").set_value(name).run()
    assert not at.exception
    assert not at.error
    assert len(at.get("plotly_chart")) == 1
    assert 1 <= len(at.dataframe) <= 2  # summary statistics, and the classes of a class task
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


def test_a_text_tagging_dataset_shows_its_tags_per_split_and_its_texts(open_page):
    at = open_page("pages/data.py")
    at.selectbox(key="data.dataset").set_value("written_dates").run()
    assert not at.exception and not at.error
    balance, texts_table = at.dataframe[-2].value, at.dataframe[-1].value
    assert list(balance.index) == ["other", "day", "month", "year"] and (balance["train"] > 0).all()
    assert texts_table.iloc[0, 0] and "class" not in texts_table.columns  # tags are per character, not per text
    vocabulary = next(m for m in at.metric if m.label == "Vocabulary")
    assert int(vocabulary.value) > 10 and "char tokens" in vocabulary.proto.delta


def test_digits_are_drawn_upright_and_counted_once_per_image(open_page):
    at = open_page("pages/data.py")
    at.selectbox(key="data.dataset").set_value("digits").run()
    assert not at.exception and not at.error
    at.slider(key="data.sample.digits").set_value(3).run()
    heat = _spec(at)["data"][0]
    image = digits_samples(seed=0).x[3]  # sklearn's load_digits().images[i]: row 0 is the top of the digit
    assert not np.array_equal(image, image.T)
    assert np.array_equal(figure_array(heat["z"]).reshape(8, 8), image)  # row = image row, not transposed
    summary, classes = at.dataframe[0].value, at.dataframe[1].value
    assert "digit" not in summary.index  # a class id has no mean
    assert classes.to_numpy().sum() == 1797 and list(classes.columns) == ["train", "val", "test"]
