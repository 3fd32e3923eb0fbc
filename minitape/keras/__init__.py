"""`mt.keras`: Keras-shaped layers, models, losses, optimizers and training, on minitape's GradientTape.

A Keras model-subclassing example runs after changing only the import:
`import minitape as tf` then `tf.keras.layers.Dense`, `tf.keras.Model`, `model.fit`.
"""

from minitape.keras import (
    activations,
    backend,
    callbacks,
    datasets,
    initializers,
    layers,
    losses,
    metrics,
    models,
    optimizers,
    utils,
)
from minitape.keras.layers import Layer
from minitape.keras.models import Input, Model, Sequential
