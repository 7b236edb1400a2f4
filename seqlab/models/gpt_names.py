"""The names of the GPT's layers: its builder (``seqlab.models.gpt``) gives them, its steps find them by them."""

POSITIONS_LAYER, FINAL_NORM, PROJECTION = "positions", "final_norm", "projection"
