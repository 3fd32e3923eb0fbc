"""`mt.bitwise`: the bits of integer tensors, under TensorFlow's `tf.bitwise` names (no gradients)."""

from minitape.ops.public import bitwise_and, bitwise_or, bitwise_xor, invert, left_shift, right_shift  # noqa: F401
