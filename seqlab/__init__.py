"""seqlab: a sequence-modelling lab on Keras 3.

The library is free of Streamlit (only ``seqlab.app`` imports it). The spine:

    load_dataset(name, **options)         -> SequenceData
    build_model(name, data, options)      -> keras.Model (the architecture registry)
    run_experiment(ExperimentSpec(...))   -> Run under saved_models/<run_id>/

``import seqlab`` registers seqlab's Keras classes, so ``keras.saving.load_model``
reads a run's ``model.keras`` after it; Keras itself is imported only when used
(see ``seqlab.registration``).
"""

from seqlab import registration

__version__ = "0.1.0"

registration.install()
