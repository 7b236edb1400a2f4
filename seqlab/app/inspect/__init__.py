"""Looking inside a trained model: the Inspect page's machinery (``inspect_view``, ``inspect_text_view``), one
view per result type of ``seqlab.inspect`` (attention, an HMM's states, a TCN's receptive field, a state-space
model's state), positions, and the Embeddings page's parts.

``seqlab.app`` imports every module here, so every result view is registered in
``seqlab.app.inspect.inspect_view.RESULT_VIEWS`` whichever page runs first.
"""
