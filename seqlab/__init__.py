"""seqlab: a sequence-modelling lab on Keras 3.

The library is free of Streamlit (only ``seqlab.app`` imports it). The spine:

    load_dataset(name, **options) -> SequenceData
    ExperimentSpec(...)            -> build_model(spec, data) -> keras.Model
    run_experiment(spec, on_event) -> Run under saved_models/<run_id>/
"""

__version__ = "0.1.0"
