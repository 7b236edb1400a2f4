import numpy as np
import pandas as pd

from seqlab.plots import (
    class_probabilities,
    confusion_matrix,
    label_sequence,
    predicted_vs_actual,
    runs_comparison,
    sample_preview,
)


def test_sample_preview_lines_for_few_inputs_and_target_in_title():
    sample = pd.DataFrame({"value": np.linspace(0, 1, 10), "marker": [0.0] * 9 + [1.0], "sum": [0.7] * 10},
                          index=pd.RangeIndex(10, name="t"))
    fig = sample_preview(sample, ["value", "marker"], "sum", {})
    assert [t.name for t in fig.data] == ["value", "marker"]
    assert "sum = 0.7" in fig.layout.title.text
    assert fig.layout.xaxis2.title.text == "step t"


def test_sample_preview_heatmap_for_many_inputs_and_per_step_target_row():
    features = [f"col{j}" for j in range(8)]
    sample = pd.DataFrame(np.eye(8), columns=features, index=pd.RangeIndex(8, name="t"))
    sample["output"] = np.arange(8) % 3
    fig = sample_preview(sample, features, "output", classes=("blank", "a", "b"))
    assert fig.data[0].type == "heatmap"
    assert list(fig.data[1].text[0][:3]) == ["blank", "a", "b"]


def test_confusion_matrix_counts():
    fig = confusion_matrix(np.array([0, 0, 1, 2]), np.array([0, 1, 1, 2]), ("a", "b", "c"))
    z = np.asarray(fig.data[0].z)
    assert z.tolist() == [[1, 1, 0], [0, 1, 0], [0, 0, 1]]
    assert fig.layout.xaxis.title.text == "predicted class"
    assert fig.layout.yaxis.title.text == "true class"


def test_predicted_vs_actual_has_diagonal_and_units():
    fig = predicted_vs_actual(np.array([0.0, 1.0]), np.array([0.1, 0.9]), name="sum", unit="",
                              baseline=np.array([0.5, 0.5]), baseline_name="mean")
    assert [t.name for t in fig.data] == ["perfect", "mean", "model"]
    assert fig.layout.xaxis.title.text == "actual sum"


def test_label_sequence_marks_agreement():
    fig = label_sequence({"truth": [0, 1, 2], "model": [0, 2, 2]}, ("blank", "a", "b"))
    z = np.asarray(fig.data[0].z)
    assert z[1].tolist() == [1.0, 0.0, 1.0]
    assert fig.data[0].text[1][1] == "b"


def test_class_probabilities_and_runs_comparison():
    fig = class_probabilities({"SavedModel": np.array([0.1, 0.9])}, ("0", "1"), true_class=1)
    assert fig.layout.yaxis.title.text == "probability"
    fig = runs_comparison(["a", "b"], [0.3, 0.2], [0.33, 0.33], metric="MAE", unit="GW")
    assert [t.name for t in fig.data] == ["model", "best baseline"]
    assert fig.layout.yaxis.title.text == "test MAE (GW)"
    fig = runs_comparison(["gru"], [0.001], [0.18], metric="MSE", log_y=True)
    bottom, top = fig.layout.yaxis.range
    assert bottom <= np.log10(0.001) - 0.5 and top >= np.log10(0.18)  # the winner's bar is half a decade tall


def test_sample_preview_draws_an_image_upright():
    features = [f"col{j}" for j in range(8)]
    image = np.arange(64.0).reshape(8, 8)  # row t of the image is step t
    sample = pd.DataFrame(image, columns=features, index=pd.RangeIndex(8, name="t")).assign(digit=6)
    fig = sample_preview(sample, features, "digit", classes=tuple("0123456789"), image=True)
    assert np.array_equal(np.asarray(fig.data[0].z), image)  # not its transpose
    assert list(fig.data[0].x) == features and fig.layout.yaxis.autorange == "reversed"  # top row first
    assert "digit = 6" in fig.layout.title.text
    assert np.array_equal(np.asarray(sample_preview(sample, features, "digit").data[0].z), image.T)  # time on x
