"""`mt.nn`: activations, losses, convolution and pooling under TensorFlow's `tf.nn` names."""

from typing import NoReturn

from minitape.namespaces.sampled_losses import compute_accidental_hits, nce_loss, sampled_softmax_loss  # noqa: F401
from minitape.ops.composite_ops import (  # noqa: F401
    batch_normalization,
    bias_add,
    embedding_lookup,
    gelu,
    l2_normalize,
    moments,
    relu6,
    selu,
    softsign,
    weighted_cross_entropy_with_logits,
)
from minitape.ops.conv_ops import (  # noqa: F401
    avg_pool,
    avg_pool1d,
    avg_pool2d,
    conv1d,
    conv2d,
    conv2d_transpose,
    max_pool,
    max_pool1d,
    max_pool2d,
)
from minitape.ops.depthwise_ops import (  # noqa: F401
    depthwise_conv2d,
    depthwise_conv2d_backprop_filter,
    depthwise_conv2d_backprop_input,
    separable_conv2d,
)
from minitape.ops.mask_ops import dropout  # noqa: F401
from minitape.ops.nn_ops import (  # noqa: F401
    l2_loss,
    leaky_relu,
    log_softmax,
    sigmoid_cross_entropy_with_logits,
    silu,
    softmax,
    softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
    swish,
)
from minitape.ops.public import elu, relu, sigmoid, softplus, tanh  # noqa: F401 - TensorFlow's parameters
from minitape.ops.sort_ops import top_k  # noqa: F401


def __getattr__(name: str) -> NoReturn:
    from minitape.namespaces import missing

    missing.raise_missing("tf.nn", name, missing.NN)
