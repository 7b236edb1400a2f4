"""A model compiled for a test's own ``fit``, with its optimizer's slots made at once."""


def compiled(model, optimizer, loss, **options):
    """``model.compile(optimizer, loss, **options)``, then the optimizer's slots (Adam's moments): a slot first
    made inside the traced training step makes TensorFlow trace that step twice, a third of a small model's fit."""
    model.compile(optimizer=optimizer, loss=loss, **options)
    model.optimizer.build(model.trainable_variables)
    return model
