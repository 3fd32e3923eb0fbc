"""`mt.keras.datasets`: small real datasets that load offline."""

from minitape.keras.datasets import digits
