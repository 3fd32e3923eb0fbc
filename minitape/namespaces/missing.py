"""What TensorFlow has and minitape leaves out, with what to use instead.

The namespaces' `__getattr__` look names up here, so `mt.summary` or `mt.linalg.svd` raises an AttributeError
that says it is missing on purpose and what to do, instead of a bare "has no attribute".
"""

from __future__ import annotations

from typing import NoReturn

TOP_LEVEL = {
    "saved_model": (
        "models cannot be saved whole; a keras model saves its weights with model.save_weights('m.weights.h5'), "
        "and any module its variables with mt.train.Checkpoint(model=module).write(path), restored with "
        "mt.train.Checkpoint(model=new_module).restore(path) into a module the same code built"
    ),
    "summary": "there is no TensorBoard; print the values or plot them with matplotlib",
    "io": "read files with numpy or Python and convert with mt.constant",
    "lite": "there is no model conversion: minitape is for learning, not deployment",
    "estimator": "use a custom training loop with mt.GradientTape, or mt.keras's Model.fit",
    "distribute": "minitape runs in one process on the CPU; drop the strategy scope",
    "tpu": "minitape runs on the CPU only",
    "IndexedSlices": "the gradient of gather is a dense tensor",
    **dict.fromkeys(
        ("sparse", "SparseTensor"),
        "tensors are dense numpy arrays: build the dense tensor, e.g. mt.scatter_nd(indices, values, dense_shape)",
    ),
    "RaggedTensor": "tensors are rectangular: pad the rows to one length, e.g. with mt.pad",
    "ragged": "tensors are rectangular: pad the rows to one length, e.g. with mt.pad",
    "strings": "tensors hold numbers only; process text in Python before converting",
    "string": "tensors hold numbers only; process text in Python before converting",
    "gradients": "tf.gradients works in graph mode only; use mt.GradientTape (tape.gradient)",
    "hessians": "tf.hessians works in graph mode only; nest two GradientTapes and take the outer tape's jacobian",
    "Graph": "there is no graph mode: every op runs eagerly",
    "Session": "TensorFlow 1 sessions do not exist here: ops run eagerly",
    "placeholder": "TensorFlow 1 placeholders do not exist here: pass values to a Python function",
    "compat": "there is no TensorFlow 1 compatibility layer: use the TensorFlow 2 names",
    "autograph": "there is no graph mode; mt.function runs the Python function as written",
    "feature_column": "preprocess the features with numpy before converting",
    "signal": "there are no FFT or signal ops; use numpy.fft on t.numpy() (no gradient)",
    "audio": "there are no audio ops; decode with a Python library and convert with mt.constant",
    "types": "there are no type protocols: test isinstance(x, (mt.Tensor, mt.Variable)), or mt.is_tensor(x)",
    "complex64": "there are no complex dtypes: use float32 or float64",
    "complex128": "there are no complex dtypes: use float32 or float64",
    "bfloat16": "use float16, float32 or float64",
    "string_dtype": "tensors hold numbers only",
    "queue": "there are no queues: use Python lists or mt.data.Dataset",
}

LINALG = {
    "qr": "there is no QR decomposition; use mt.linalg.cholesky or mt.linalg.solve",
    "lu": "there is no LU decomposition; mt.linalg.solve, inv and det cover most uses",
    "eig": "only symmetric matrices: use mt.linalg.eigh",
    "eigvals": "only symmetric matrices: use mt.linalg.eigvalsh",
    "pinv": "for least squares use mt.linalg.lstsq; for an inverse of a square matrix mt.linalg.inv",
    "expm": "there is no matrix exponential",
    "cross": "write it from slices: a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1], ...",
    "logm": "there is no matrix logarithm",
    "sqrtm": "there is no matrix square root; for a symmetric matrix use mt.linalg.eigh",
    "matrix_rank": "count the singular values above a tolerance: mt.linalg.svd(a, compute_uv=False)",
    "lu_solve": "use mt.linalg.solve",
    "lu_matrix_inverse": "use mt.linalg.inv",
    "lu_reconstruct": "there is no LU decomposition",
    "tridiagonal_solve": "build the full matrix and use mt.linalg.solve",
    "tridiagonal_matmul": "build the full matrix and use mt.linalg.matmul",
    "banded_triangular_solve": "build the full matrix and use mt.linalg.triangular_solve",
    "eigh_tridiagonal": "build the full matrix and use mt.linalg.eigh",
    "LinearOperator": "there are no linear operators: use dense matrices",
}

_ONLY_2D = "only 1-D and 2-D convolution (mt.nn.conv1d, mt.nn.conv2d) and pooling: reshape the data to fit them"
NN = {
    "conv1d_transpose": "use mt.nn.conv2d_transpose on x[:, None] (a height of 1)",
    **dict.fromkeys(
        ("conv3d", "conv3d_transpose", "max_pool3d", "avg_pool3d", "convolution", "conv_transpose", "pool"), _ONLY_2D
    ),
    "atrous_conv2d": "use mt.nn.conv2d(value, filters, 1, padding, dilations=rate)",
    "max_pool_with_argmax": "use mt.nn.max_pool2d; its gradient goes to each window's maximum",
    **dict.fromkeys(
        ("ctc_loss", "ctc_greedy_decoder", "ctc_beam_search_decoder", "ctc_unique_labels", "collapse_repeated"),
        "there is no CTC: minitape has no sequence models",
    ),
    **dict.fromkeys(
        ("fixed_unigram_candidate_sampler", "learned_unigram_candidate_sampler"),
        "only the log-uniform and uniform samplers are there (mt.random.log_uniform_candidate_sampler, "
        "mt.random.uniform_candidate_sampler); or pass sampled_values= to mt.nn.nce_loss / sampled_softmax_loss",
    ),
    **dict.fromkeys(
        ("local_response_normalization", "lrn"), "there is no local response normalization; use batch_normalization"
    ),
    "crelu": "write mt.concat([mt.nn.relu(x), mt.nn.relu(-x)], axis=-1)",
    "normalize_moments": "use mt.nn.moments, which gives the mean and variance directly",
    "weighted_moments": "use mt.nn.moments, or mt.reduce_sum(w * x) / mt.reduce_sum(w) for a weighted mean",
    "sufficient_statistics": "use mt.nn.moments",
    "in_top_k": "compare mt.math.top_k(predictions, k).indices with the targets",
    "compute_average_loss": "take mt.reduce_mean of the per-example losses: there is one replica",
    "scale_regularization_loss": "add the regularization loss as it is: there is one replica",
    "embedding_lookup_sparse": "tensors are dense: use mt.nn.embedding_lookup",
    "safe_embedding_lookup_sparse": "tensors are dense: use mt.nn.embedding_lookup",
    **dict.fromkeys(
        ("space_to_depth", "depth_to_space", "space_to_batch", "with_space_to_batch"),
        "write it with mt.reshape and mt.transpose",
    ),
    **dict.fromkeys(("dilation2d", "erosion2d", "fractional_max_pool", "fractional_avg_pool"), _ONLY_2D),
    "zero_fraction": "take mt.reduce_mean(mt.cast(mt.equal(x, 0), mt.float32))",
    "log_poisson_loss": "write it: mt.exp(log_input) - targets * log_input",
    "isotonic_regression": "there is no isotonic regression",
    "approx_max_k": "use mt.math.top_k",
    "approx_min_k": "use mt.math.top_k of -x",
    "batch_norm_with_global_normalization": "use mt.nn.batch_normalization",
}

MATH = {
    "bessel_i0": "there are no Bessel functions (erf, erfc, lgamma, digamma and polygamma are here)",
    "real": "there are no complex dtypes",
    "imag": "there are no complex dtypes",
    "angle": "there are no complex dtypes",
    "conj": "there are no complex dtypes",
}

DATASETS = {
    name: "only mnist, fashion_mnist, cifar10 and digits are here; load other data with numpy and mt.data.Dataset"
    for name in ("cifar100", "imdb", "reuters", "boston_housing", "california_housing")
}

_NO_TEXT = "tensors hold numbers only: turn text into integer ids in Python (a dict of words), then Embedding"
_OTHER_AUGMENT = (
    "of Keras 3's image augmentations minitape has RandomFlip, RandomRotation, RandomZoom, RandomTranslation, "
    "RandomCrop, RandomContrast and RandomBrightness; write this one as a Layer whose call(images, training=True) "
    "transforms the images with mt ops when training (see the data augmentation tutorial's RandomInvert)"
)
LAYERS = {
    **dict.fromkeys(
        ("ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"),
        "there is no convolutional LSTM; apply Conv2D to each frame (the frames folded into the batch axis with "
        "mt.reshape), flatten each frame's features, then run LSTM or GRU over the frames",
    ),
    "StackedRNNCells": "stack the layers instead: LSTM(units, return_sequences=True), then LSTM(units)",
    "GroupQueryAttention": "use MultiHeadAttention, which gives every query head its own key and value heads "
    "(grouped-query attention shares each key and value head among several query heads)",
    **dict.fromkeys(("TextVectorization", "StringLookup", "IntegerLookup", "Hashing", "CategoryEncoding"), _NO_TEXT),
    **dict.fromkeys(
        (
            "AugMix",
            "AutoContrast",
            "ContrastLimitedAdaptiveHistogramEqualization",
            "CutMix",
            "Equalization",
            "MaxNumBoundingBoxes",
            "MixUp",
            "RandAugment",
            "RandomColorDegeneration",
            "RandomColorJitter",
            "RandomElasticTransform",
            "RandomErasing",
            "RandomGaussianBlur",
            "RandomGrayscale",
            "RandomHue",
            "RandomInvert",
            "RandomPerspective",
            "RandomPosterization",
            "RandomSaturation",
            "RandomSharpness",
            "RandomShear",
            "Solarization",
        ),
        _OTHER_AUGMENT,
    ),  # fmt: skip
    "Conv3D": "there is no 3-D convolution, only Conv1D and Conv2D: for video apply Conv2D to each frame "
    "(the frames folded into the batch axis)",
}

DTYPES = {
    **dict.fromkeys(("complex", "complex64", "complex128"), "there are no complex dtypes: use float32 or float64"),
    "bfloat16": "use float16, float32 or float64",
    "half": "use mt.float16 (TensorFlow's other name for it)",
    "double": "use mt.float64 (TensorFlow's other name for it)",
    **dict.fromkeys(
        ("qint8", "quint8", "qint16", "quint16", "qint32", "QUANTIZED_DTYPES"),
        "there are no quantized dtypes: use int8, uint8, int16, uint16 or int32",
    ),
    "string": "tensors hold numbers and booleans only: process text in Python first",
    **dict.fromkeys(("resource", "variant"), "there are no resource or variant handles: variables are mt.Variable"),
    "experimental": "there are no experimental dtypes",
}

CONFIG = {
    "set_virtual_device_configuration": "there is one CPU device, and no distribution strategy to spread over more",
    "VirtualDeviceConfiguration": "there is one CPU device, and no distribution strategy to spread over more",
    "set_logical_device_configuration": "there is one CPU device, and no distribution strategy to spread over more",
    "LogicalDeviceConfiguration": "there is one CPU device, and no distribution strategy to spread over more",
    "enable_tensor_float_32_execution": "there is no GPU: float32 is computed in float32 on the CPU",
}

IMAGE = {
    "decode_png": "decode files with Pillow or matplotlib.image.imread, then mt.constant",
    "decode_jpeg": "decode files with Pillow or matplotlib.image.imread, then mt.constant",
}


TRAIN = {
    **dict.fromkeys(
        ("Saver", "import_meta_graph", "MonitoredTrainingSession", "Server", "ClusterSpec", "Coordinator"),
        "TensorFlow 1's graph-mode training utilities do not exist here; use mt.train.Checkpoint and "
        "mt.train.CheckpointManager to save, and a Python loop to train",
    ),
    **dict.fromkeys(
        ("Example", "Features", "Feature", "BytesList", "FloatList", "Int64List", "SequenceExample"),
        "there are no tf.train.Example protos or TFRecord files; keep the data in numpy arrays (np.save / np.load)",
    ),
    "ExponentialMovingAverage": "keep the average in a Variable: avg.assign(decay * avg + (1 - decay) * value)",
    "TrackableView": "mt.train.list_variables(path) lists a checkpoint's keys, which are the paths to the values",
    "checkpoints_iterator": "loop over mt.train.CheckpointManager(...).checkpoints, or poll "
    "mt.train.latest_checkpoint(directory)",
}

FUNCTION = dict.fromkeys(
    ("experimental_get_compiler_ir",),
    "minitape replays a traced graph as numpy calls, with no compiler: there is no XLA IR to show; "
    "f.get_concrete_function(...).graph holds the recorded steps",
)
GRAPH = dict.fromkeys(
    ("as_graph_def", "get_operations", "as_default"),
    "a traced graph is a list of numpy calls, not TensorFlow's protobuf GraphDef of nodes: its `steps` list them "
    "(ops, variable reads and assigns, Python calls, guards), and minitape.function.view.GraphView(f) draws them",
)
DATASET = {
    "group_by_window": "sort or group the elements in Python first",
    "bucket_by_sequence_length": "use padded_batch",
    "save": "datasets cannot be saved; keep the numpy arrays with np.save",
    "snapshot": "datasets cannot be saved; keep the numpy arrays with np.save",
    "choose_from_datasets": "use Dataset.sample_from_datasets, or build the order in Python",
    "rebatch": "unbatch() then batch()",
    "fingerprint": "there is no fingerprinting: datasets are Python generators",
    "counter": "use Dataset.range(start, a large stop), or enumerate()",
    "get_single_element": "take the element with next(iter(dataset))",
    "ragged_batch": "tensors are rectangular: use padded_batch",
    "sparse_batch": "tensors are dense: use padded_batch",
    "random": "use Dataset.range and map a function of mt.random",
    "load": "datasets cannot be saved or loaded; keep the numpy arrays with np.save",
    "shard": "take every n-th element with enumerate() and filter()",
    "rejection_resample": "use filter() with a random predicate",
}

DATA = {
    "TextLineDataset": "read the lines with Python (open(path).read().splitlines()) and process the text there",
    "TFRecordDataset": "there are no TFRecord files; keep the data in numpy arrays (np.save / np.load)",
    "FixedLengthRecordDataset": "read the file with numpy (np.fromfile) and use Dataset.from_tensor_slices",
    "TFRecordOptions": "there are no TFRecord files",
}

DATA_EXPERIMENTAL = {
    name: "load the file with numpy (np.loadtxt or np.genfromtxt with delimiter=',') or the csv module, then use "
    "mt.data.Dataset.from_tensor_slices"
    for name in ("make_csv_dataset", "CsvDataset", "make_batched_features_dataset", "SqlDataset")
}

RANDOM = (
    {
        name: "draw with numpy on the global generator, mt.random.generator() (e.g. .binomial(n, p, shape)), "
        "and convert with mt.constant"
        for name in (
            "stateless_binomial",
            "stateless_poisson",
            "stateless_gamma",
            "stateless_parameterized_truncated_normal",
        )
    }
    | {
        name: "only mt.random.log_uniform_candidate_sampler and uniform_candidate_sampler are there; draw other "
        "classes with mt.random.categorical"
        for name in ("all_candidate_sampler", "fixed_unigram_candidate_sampler", "learned_unigram_candidate_sampler")
    }
    | {
        "Algorithm": "there is one algorithm, numpy's PCG64; drop the alg argument",
        "create_rng_state": "use mt.random.Generator.from_seed(seed)",
        "stateless_random_crop": "slice at mt.random.stateless_uniform offsets",
    }
)


def raise_missing(namespace: str, name: str, table: dict[str, str]) -> NoReturn:
    """Raise the AttributeError for `namespace.name`, saying why it is missing if the table knows."""
    if name in table:
        raise AttributeError(
            f"minitape has no {namespace}.{name}: {table[name]}. minitape covers the eager GradientTape API and "
            "what TensorFlow's tutorials use; see 'What is not there' in README.md"
        )
    raise AttributeError(f"module 'minitape{namespace[2:]}' has no attribute {name!r}")
