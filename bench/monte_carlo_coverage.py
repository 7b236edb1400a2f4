"""Monte-Carlo forecast bands on the test split: how often do they hold the actual values?

    python -m bench.monte_carlo_coverage [--models arx,narx] [--samples 200]

For each model, a run on ``energy`` with the known future inputs (the
dataset's default windows: lookback two days, horizon one day, stride 4) is
trained; then from every test origin the Monte-Carlo strategy
(``seqlab.forecasting.strategies``) simulates ``--samples`` futures of 48
steps, feeding each prediction back with Gaussian noise. The noise is
compared two ways: one standard deviation, the validation one-step residual
(the notes' sigma), and one per lead, the validation residual of the model's
output at that lead (what seqlab uses). Printed: the coverage and mean width
of the 80 % and 95 % bands, and the MAPE of the sample mean beside the
model's direct forecast.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


from seqlab.data import load_dataset  # noqa: E402
from seqlab.forecasting import forecast_metrics  # noqa: E402
from seqlab.forecasting.series import ForecastSeries  # noqa: E402
from seqlab.forecasting.steppers import WindowSteps, keras_predict  # noqa: E402
from seqlab.forecasting.strategies import lead_sigmas, monte_carlo  # noqa: E402
from seqlab.runs import RunStore  # noqa: E402
from seqlab.training import ExperimentSpec, run_experiment  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="arx,narx")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--runs", default="/tmp/bench_monte_carlo_runs")
    args = parser.parse_args()

    options = {"known_future": True}
    data = load_dataset("energy", **options)
    series = ForecastSeries.from_data(data)
    test = data.splits["test"]
    print(f"energy: {len(test)} test origins, {args.samples} samples each, 48 steps\n")
    print("| model | noise | 80 % band: coverage, width GW | 95 % band: coverage, width GW | MAPE of the mean % | "
          "MAPE direct % | seconds |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: |")
    for model in args.models.split(","):
        run = run_experiment(ExperimentSpec("energy", model, options, epochs=10, early_stopping=3),
                             store=RunStore(args.runs))
        predict = keras_predict(run.load_model())
        direct_mape = forecast_metrics(test.y, predict(test.inputs))["mape"]
        per_lead = lead_sigmas(predict, data.splits["val"])
        for noise, sigma in (("one-step σ", per_lead[0]), ("σ per lead", per_lead)):
            started = time.perf_counter()
            mc = monte_carlo(WindowSteps(predict), series, test.origin, data.horizon, sigma, args.samples)
            seconds = time.perf_counter() - started
            bands = mc.band_metrics(test.y)
            cells = " | ".join(f"{100 * bands[b]['coverage']:.1f} %, {bands[b]['width']:.3f}" for b in (80, 95))
            mape = forecast_metrics(test.y, mc.mean)["mape"]
            print(f"| {model} | {noise} | {cells} | {mape:.2f} | {direct_mape:.2f} | {seconds:.0f} |", flush=True)


if __name__ == "__main__":
    main()
