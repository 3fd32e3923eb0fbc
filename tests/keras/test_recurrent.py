"""SimpleRNN, LSTM, GRU, RNN, Bidirectional and their cells: outputs against the numbers Keras 3 gives for the
same weights, Keras 3's weight names, shapes and order, gradients through time against finite differences
(float64), dropout, training with fit, functional and Sequential models, and the input errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients

keras = mt.keras
layers = mt.keras.layers

pytestmark = pytest.mark.usefixtures("keras_session")
GATES = {"SimpleRNN": 1, "LSTM": 4, "GRU": 3}


def keras_weights(kind: str, units: int = 3, features: int = 4, reset_after: bool = True, seed: int = 0) -> list:
    """kernel, recurrent_kernel, bias in Keras 3's layout, from a seeded numpy generator (float32)."""
    rng = np.random.default_rng(seed)
    width = GATES[kind] * units
    kernel = rng.normal(scale=0.5, size=(features, width)).astype(np.float32)
    recurrent = rng.normal(scale=0.5, size=(units, width)).astype(np.float32)
    bias_shape = (2, width) if kind == "GRU" and reset_after else (width,)
    return [kernel, recurrent, rng.normal(scale=0.5, size=bias_shape).astype(np.float32)]


def sequences() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x of shape (batch 2, steps 3, features 4), and two (2, 3) states."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 3, 4)).astype(np.float32)
    return x, rng.normal(size=(2, 3)).astype(np.float32), rng.normal(size=(2, 3)).astype(np.float32)


# Printed by Keras 3.15 (TensorFlow 2.21) for keras_weights(kind) and sequences(): each layer has 3 units and is
# called on x (with initial_state=[h0, c0] for LSTM, [h0] otherwise, in the 'initial_state' cases); every
# returned tensor, in order, rounded to 7 decimals.
KERAS_3 = {
    "SimpleRNN sequences": [
        [
            [[0.945551, -0.0128935, 0.2837579], [-0.757494, -0.7159763, 0.1411261], [0.9163846, -0.2365405, 0.7273213]],
            [
                [-0.0647577, -0.5751907, 0.0922336],
                [0.5567943, -0.3232909, 0.485987],
                [0.4195631, 0.3096241, -0.5600911],
            ],
        ]
    ],
    "SimpleRNN last+state backwards": [
        [[0.9782766, 0.406243, 0.4048282], [0.6481203, -0.4056642, 0.4773305]],
        [[0.9782766, 0.406243, 0.4048282], [0.6481203, -0.4056642, 0.4773305]],
    ],
    "SimpleRNN sequences backwards": [
        [
            [[0.3749736, -0.5316011, 0.3336852], [-0.1261364, -0.5848092, 0.5200028], [0.9782766, 0.406243, 0.4048282]],
            [
                [0.7044362, 0.0397188, -0.2967968],
                [-0.5162636, -0.6581733, -0.0206237],
                [0.6481203, -0.4056642, 0.4773305],
            ],
        ]
    ],
    "SimpleRNN initial_state+state": [
        [[0.9149216, -0.3408474, 0.7410684], [0.7026064, 0.2189757, -0.3442005]],
        [[0.9149216, -0.3408474, 0.7410684], [0.7026064, 0.2189757, -0.3442005]],
    ],
    "LSTM sequences": [
        [
            [
                [-0.0998004, 0.0885271, -0.0617434],
                [-0.0005844, 0.2820246, -0.299801],
                [0.0422666, 0.3344048, -0.335151],
            ],
            [[-0.001396, 0.2171302, 0.0781111], [0.0197764, 0.2392236, -0.0034359], [0.0192111, 0.3805185, -0.0548679]],
        ]
    ],
    "LSTM last+state backwards": [
        [[-0.0269169, 0.1465045, -0.1269954], [0.0294397, 0.3598577, 0.0451899]],
        [[-0.0269169, 0.1465045, -0.1269954], [0.0294397, 0.3598577, 0.0451899]],
        [[-0.0522797, 0.7035111, -0.3115206], [0.0775354, 0.5765625, 0.0603455]],
    ],
    "LSTM sequences backwards": [
        [
            [
                [0.0438565, 0.259107, -0.1288523],
                [0.0574254, 0.2868543, -0.2796819],
                [-0.0269169, 0.1465045, -0.1269954],
            ],
            [[-0.0334341, 0.2968418, -0.0847083], [0.0094475, 0.251769, -0.0756068], [0.0294397, 0.3598577, 0.0451899]],
        ]
    ],
    "LSTM initial_state+state": [
        [[0.3017455, 0.3066288, -0.285746], [0.1976519, 0.4143504, 0.3076491]],
        [[0.3017455, 0.3066288, -0.285746], [0.1976519, 0.4143504, 0.3076491]],
        [[1.0201601, 0.6586372, -0.3938527], [0.6682636, 0.6551827, 0.3878115]],
    ],
    "GRU sequences": [
        [
            [
                [-0.3472602, 0.1794595, -0.0652496],
                [-0.5337794, 0.5400755, 0.0137442],
                [-0.6692132, 0.5778837, 0.0886993],
            ],
            [[-0.4731084, 0.2404317, 0.2591362], [-0.6611527, 0.3750968, 0.3787108], [-0.6173917, 0.418774, 0.3723298]],
        ]
    ],
    "GRU last+state backwards": [
        [[-0.7151394, 0.4787943, 0.0845078], [-0.6960549, 0.3721674, 0.3689871]],
        [[-0.7151394, 0.4787943, 0.0845078], [-0.6960549, 0.3721674, 0.3689871]],
    ],
    "GRU sequences backwards": [
        [
            [
                [-0.3581938, 0.3621767, 0.0842876],
                [-0.5649592, 0.5751565, 0.1409665],
                [-0.7151394, 0.4787943, 0.0845078],
            ],
            [
                [-0.0535593, 0.2522491, 0.0463136],
                [-0.4054307, 0.4532647, 0.2018343],
                [-0.6960549, 0.3721674, 0.3689871],
            ],
        ]
    ],
    "GRU initial_state+state": [
        [[-1.4506866, 0.3390433, 0.0236248], [-0.7008216, 0.3667447, 0.457902]],
        [[-1.4506866, 0.3390433, 0.0236248], [-0.7008216, 0.3667447, 0.457902]],
    ],
    "GRU reset_after=False sequences": [
        [
            [
                [-0.4575789, -0.0646486, -0.1397683],
                [-0.5967309, 0.1844908, 0.0140236],
                [-0.7207224, 0.1266255, 0.1361015],
            ],
            [
                [-0.5858166, -0.1234509, 0.4098708],
                [-0.7672569, -0.1515395, 0.5260189],
                [-0.5960476, -0.130149, 0.3210846],
            ],
        ]
    ],
    "LSTM relu/hard no bias": [
        [
            [[-0.0, -0.0, 0.0], [-0.0, -0.0, 0.0], [-0.0, 0.0054816, 0.0]],
            [[0.0, 0.0, 0.0451653], [-0.0037076, -0.0, -0.0], [-6.8e-06, 0.0019934, 0.0]],
        ]
    ],
}
KERAS_3_BIDIRECTIONAL = {
    "LSTM concat ['return_sequences']": [
        [
            [
                [-0.0998004, 0.0885271, -0.0617434, 0.0793197, 0.0602644, 0.0062297],
                [-0.0005844, 0.2820246, -0.299801, -0.0871354, 0.1005931, -0.0538109],
                [0.0422666, 0.3344048, -0.335151, -0.0653055, 0.0677247, -0.0476726],
            ],
            [
                [-0.001396, 0.2171302, 0.0781111, 0.0017999, 0.1976147, -0.1504045],
                [0.0197764, 0.2392236, -0.0034359, 0.028152, 0.161319, -0.035413],
                [0.0192111, 0.3805185, -0.0548679, -0.0840036, 0.0570814, -0.0231923],
            ],
        ]
    ],
    "GRU sum ['return_state']": [
        [[-0.9388678, 0.2546642, 0.0676798], [-0.5260541, 0.1825406, 0.3700321]],
        [[-0.6692132, 0.5778837, 0.0886993], [-0.6173917, 0.418774, 0.3723298]],
        [[-0.2696547, -0.3232195, -0.0210195], [0.0913376, -0.2362334, -0.0022977]],
    ],
    "SimpleRNN ave ['return_sequences']": [
        [
            [
                [0.0399324, 0.1996013, 0.4188406],
                [-0.1175013, -0.126547, -0.2175078],
                [0.7376885, -0.1394928, 0.0777071],
            ],
            [[0.1704296, 0.0854092, -0.3479219], [0.5078617, 0.1225571, 0.2714841], [0.5057992, -0.1006427, -0.48984]],
        ]
    ],
    "SimpleRNN mul []": [[[-0.7933016, -0.0974774, 0.4028802], [0.1701819, 0.2309824, 0.4413952]]],
    "GRU None ['return_sequences']": [
        [
            [
                [-0.3472602, 0.1794595, -0.0652496],
                [-0.5337794, 0.5400755, 0.0137442],
                [-0.6692132, 0.5778837, 0.0886993],
            ],
            [[-0.4731084, 0.2404317, 0.2591362], [-0.6611527, 0.3750968, 0.3787108], [-0.6173917, 0.418774, 0.3723298]],
        ],
        [
            [
                [-0.2696547, -0.3232195, -0.0210195],
                [-0.4128748, -0.5927417, 0.1270221],
                [-0.2203033, -0.2953481, -0.125052],
            ],
            [
                [0.0913376, -0.2362334, -0.0022977],
                [0.0975215, -0.1711888, -0.0190469],
                [0.2131565, -0.0723201, -0.4322598],
            ],
        ],
    ],
    "LSTM initial_state concat": [
        [
            [0.3017455, 0.3066288, -0.285746, 0.0432032, -0.0013486, -0.0040846],
            [0.1976519, 0.4143504, 0.3076491, 0.0033305, 0.1767065, -0.1246773],
        ],
        [[0.3017455, 0.3066288, -0.285746], [0.1976519, 0.4143504, 0.3076491]],
        [[1.0201601, 0.6586372, -0.3938527], [0.6682636, 0.6551827, 0.3878115]],
        [[0.0432032, -0.0013486, -0.0040846], [0.0033305, 0.1767065, -0.1246773]],
        [[0.0955655, -0.0061967, -0.0062922], [0.0148032, 0.6035268, -0.2694615]],
    ],
}

CASES = {
    "sequences": {"return_sequences": True},
    "sequences backwards": {"return_sequences": True, "go_backwards": True},
    "last+state backwards": {"return_state": True, "go_backwards": True},
    "initial_state+state": {"return_state": True},
}


def with_keras_weights(kind: str, seed: int = 0, **kwargs) -> layers.Layer:
    layer = getattr(layers, kind)(3, **kwargs)
    layer.build((2, 3, 4))
    layer.set_weights(keras_weights(kind, reset_after=kwargs.get("reset_after", True), seed=seed))
    return layer


def as_list(outputs) -> list:
    return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]


def assert_keras_numbers(got, want) -> None:
    got = as_list(got)
    assert len(got) == len(want)
    for tensor, numbers in zip(got, want):
        np.testing.assert_allclose(tensor.numpy(), numbers, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", GATES)
@pytest.mark.parametrize("case", CASES)
def test_outputs_are_the_numbers_keras_3_gives(kind, case):
    x, h0, c0 = sequences()
    layer = with_keras_weights(kind, **CASES[case])
    if case.startswith("initial_state"):
        outputs = layer(x, initial_state=[h0, c0] if kind == "LSTM" else [h0])
    else:
        outputs = layer(x)
    if CASES[case].get("return_state"):
        assert isinstance(outputs, tuple)  # Keras 3: (output, h) or, for LSTM, (output, h, c)
    assert_keras_numbers(outputs, KERAS_3[f"{kind} {case}"])


@pytest.mark.parametrize("kind", GATES)
def test_without_return_sequences_the_output_is_the_last_step(kind):
    x, _, _ = sequences()
    last = with_keras_weights(kind)(x)
    np.testing.assert_allclose(last.numpy(), np.array(KERAS_3[f"{kind} sequences"][0])[:, -1], rtol=1e-5, atol=1e-6)


def test_gru_reset_before_and_lstm_other_activations_give_keras_3s_numbers():
    x, _, _ = sequences()
    gru = with_keras_weights("GRU", return_sequences=True, reset_after=False)
    assert gru.cell.bias.shape == (9,)
    assert_keras_numbers(gru(x), KERAS_3["GRU reset_after=False sequences"])
    lstm = layers.LSTM(3, activation="relu", recurrent_activation="tanh", use_bias=False, return_sequences=True)
    lstm.build((2, 3, 4))
    lstm.set_weights(keras_weights("LSTM")[:2])
    assert_keras_numbers(lstm(x), KERAS_3["LSTM relu/hard no bias"])


def test_weights_have_keras_3s_names_shapes_order_and_initial_values():
    x = np.zeros((2, 5, 4), np.float32)
    built = [layers.SimpleRNN(3), layers.LSTM(3), layers.GRU(3), layers.GRU(3, reset_after=False)]
    for layer in built:
        layer(x)
    # Keras 3.15: paths 'lstm/lstm_cell/kernel', ...; the cell is 'lstm_cell' in every LSTM
    assert [(w.name, tuple(w.shape)) for w in built[1].weights] == [
        ("lstm/lstm_cell/kernel:0", (4, 12)),
        ("lstm/lstm_cell/recurrent_kernel:0", (3, 12)),
        ("lstm/lstm_cell/bias:0", (12,)),
    ]
    assert [w.name for w in built[0].weights][0] == "simple_rnn/simple_rnn_cell/kernel:0"
    shapes = [[tuple(w.shape) for w in layer.weights] for layer in built]
    assert shapes == [
        [(4, 3), (3, 3), (3,)],
        [(4, 12), (3, 12), (12,)],
        [(4, 9), (3, 9), (2, 9)],
        [(4, 9), (3, 9), (9,)],
    ]
    assert [layer.count_params() for layer in built] == [24, 96, 81, 72]
    kernel, recurrent, bias = built[1].get_weights()
    np.testing.assert_array_equal(bias, [0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0])  # unit_forget_bias: f starts at 1
    np.testing.assert_allclose(recurrent @ recurrent.T, np.eye(3), atol=1e-6)  # 'orthogonal'
    assert np.abs(kernel).max() <= np.sqrt(6 / (4 + 12)) and np.abs(kernel).std() > 0.1  # 'glorot_uniform'
    assert layers.LSTM(3, unit_forget_bias=False).cell.get_config()["unit_forget_bias"] is False
    assert built[1].units == 3 and built[1].recurrent_activation is keras.activations.sigmoid


def test_set_weights_takes_what_get_weights_gives():
    x, _, _ = sequences()
    source = layers.LSTM(3, return_sequences=True)
    copy = layers.LSTM(3, return_sequences=True)
    copy.build(x.shape)
    assert not np.allclose(copy(x).numpy(), source(x).numpy())
    copy.set_weights(source.get_weights())
    np.testing.assert_array_equal(copy(x).numpy(), source(x).numpy())
    with pytest.raises(ValueError, match='layer "lstm_1" has 3 weights, but 2 were given'):
        copy.set_weights(source.get_weights()[:2])


def test_orthogonal_initializer():
    assert isinstance(keras.initializers.get("orthogonal"), keras.initializers.Orthogonal)
    assert keras.initializers.OrthogonalInitializer is keras.initializers.orthogonal is keras.initializers.Orthogonal
    tall = keras.initializers.Orthogonal(gain=2.0, seed=3)((6, 4)).numpy()
    np.testing.assert_allclose(tall.T @ tall, 4 * np.eye(4), atol=1e-5)
    wide = keras.initializers.Orthogonal(seed=3)((3, 12), dtype="float64").numpy()
    np.testing.assert_allclose(wide @ wide.T, np.eye(3), atol=1e-12)
    conv = keras.initializers.Orthogonal(seed=1)((2, 2, 3, 4), dtype="float64").numpy().reshape(12, 4)
    np.testing.assert_allclose(conv.T @ conv, np.eye(4), atol=1e-12)  # the axes before the last are the rows
    again = keras.initializers.Orthogonal(gain=2.0, seed=3)((6, 4)).numpy()
    np.testing.assert_array_equal(tall, again)
    # the columns' signs follow R's diagonal, so the matrices are spread evenly: without that, numpy's QR
    # would make entry [0, 0] negative every time
    corners = [keras.initializers.Orthogonal()((3, 3)).numpy()[0, 0] for _ in range(400)]
    assert abs(np.mean(corners)) < 0.1 and min(corners) < -0.5 < 0.5 < max(corners)
    with pytest.raises(ValueError, match=r"Orthogonal: the shape to initialize must have at least 2 axes.*\(3,\)"):
        keras.initializers.Orthogonal()((3,))


@pytest.mark.parametrize("kind", GATES)
def test_gradients_through_time_match_finite_differences(kind):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 5, 3))
    layer = getattr(layers, kind)(4, return_sequences=True, dtype="float64")
    layer.build(x.shape)
    layer.set_weights([w + rng.normal(scale=0.3, size=w.shape) for w in layer.get_weights()])
    states = [rng.normal(size=(2, 4)) for _ in range(2 if kind == "LSTM" else 1)]
    check_gradients(lambda a, *s: layer(a, initial_state=list(s)), [x, *states])  # d/d(inputs, initial states)

    weights_of_outputs = rng.normal(size=(2, 5, 4))

    def loss():
        return mt.reduce_sum(layer(x) * weights_of_outputs)

    with mt.GradientTape() as tape:
        value = loss()
    variables = layer.trainable_weights
    assert [v.name.rsplit("/", 1)[1] for v in variables] == ["kernel:0", "recurrent_kernel:0", "bias:0"]
    eps = 1e-6
    for variable, grad in zip(variables, tape.gradient(value, variables)):
        start = variable.numpy()
        for _ in range(2):  # central differences along random directions
            direction = rng.normal(size=start.shape)
            variable.assign(start + eps * direction)
            up = float(loss())
            variable.assign(start - eps * direction)
            down = float(loss())
            variable.assign(start)
            np.testing.assert_allclose(np.sum(grad.numpy() * direction), (up - down) / (2 * eps), rtol=1e-6)


def test_second_derivatives_through_time():
    x = np.random.default_rng(3).normal(size=(2, 4, 3))
    gru = layers.GRU(2, reset_after=False, dtype="float64")
    lstm = layers.LSTM(2, go_backwards=True, return_state=True, dtype="float64")
    check_gradients(lambda a: gru(a), [x], order=2)
    check_gradients(lambda a: lstm(a), [x], order=2)


def test_the_tape_records_each_step_in_the_cells_scope():
    layer = layers.LSTM(3)
    x = mt.constant(np.random.default_rng(4).normal(size=(2, 4, 2)), dtype="float32")
    with mt.GradientTape() as tape:
        tape.watch(x)
        last = layer(x)
    matmuls = [r for r in tape.records if r.type == "MatMul"]
    assert len(matmuls) == 2 * 4 and {r.scope for r in matmuls} == {"lstm/lstm_cell"}  # x @ W and h @ U per step
    dx = tape.gradient(last, x).numpy()
    assert np.all(np.abs(dx).sum(axis=(0, 2)) > 0)  # the last output depends on every step, the first one too


class MinimalRNNCell(layers.Layer):
    """The cell of Keras's RNN documentation: output = x @ kernel + h @ recurrent_kernel."""

    def __init__(self, units: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape) -> None:
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), name="kernel")
        self.recurrent_kernel = self.add_weight(shape=(self.units, self.units), name="recurrent_kernel")

    def call(self, inputs, states):
        output = mt.matmul(inputs, self.kernel) + mt.matmul(states[0], self.recurrent_kernel)
        return output, [output]


def test_rnn_runs_a_cell_of_your_own_and_the_built_in_cells():
    x = np.random.default_rng(5).normal(size=(2, 4, 3)).astype(np.float32)
    layer = layers.RNN(MinimalRNNCell(2), return_sequences=True, return_state=True)
    outputs, h = layer(x)
    assert [w.name for w in layer.weights] == [
        "rnn/minimal_rnn_cell/kernel:0",
        "rnn/minimal_rnn_cell/recurrent_kernel:0",
    ]
    kernel, recurrent = layer.get_weights()
    state, want = np.zeros((2, 2), np.float32), []
    for t in range(4):
        state = x[:, t] @ kernel + state @ recurrent
        want.append(state)
    np.testing.assert_allclose(outputs.numpy(), np.stack(want, axis=1), rtol=1e-5)
    np.testing.assert_allclose(h.numpy(), want[-1], rtol=1e-5)
    assert layer.compute_output_shape((None, 4, 3)) == ((None, 4, 2), (None, 2))
    assert [tuple(s.shape) for s in layer.get_initial_state(5)] == [(5, 2)]  # zeros, as the first step reads
    assert not np.any(layer.get_initial_state(5)[0].numpy())

    cell = layers.LSTMCell(3)
    wrapped = layers.RNN(cell)
    x = sequences()[0]
    wrapped(x)
    lstm = layers.LSTM(3)
    lstm.build(x.shape)
    lstm.set_weights(wrapped.get_weights())
    np.testing.assert_array_equal(wrapped(x).numpy(), lstm(x).numpy())
    h, (h_again, c) = cell(x[:, 0], [np.zeros((2, 3)), np.zeros((2, 3))])  # one step: (output, [h, c])
    assert h.shape == c.shape == (2, 3) and h is h_again


def test_dropout_drops_the_same_units_at_every_step_and_only_while_training():
    ones = np.ones((2, 4, 6), np.float32)
    layer = layers.SimpleRNN(6, activation=None, use_bias=False, dropout=0.5, return_sequences=True, seed=3)
    layer.build(ones.shape)
    layer.set_weights([np.eye(6), np.zeros((6, 6))])  # each output is its input (masked); nothing recurs
    dropped = layer(ones, training=True).numpy()
    assert set(np.unique(dropped)) == {0.0, 2.0}  # kept inputs are scaled by 1 / (1 - rate)
    assert np.all(dropped == dropped[:, :1])  # one mask per sequence, as in Keras
    np.testing.assert_array_equal(layer(ones).numpy(), ones)  # not training: no dropout
    assert not np.array_equal(layer(ones, training=True).numpy(), dropped)  # a new batch gets new masks

    recurrent = layers.SimpleRNN(6, activation=None, use_bias=False, recurrent_dropout=0.5, return_sequences=True)
    recurrent.build(ones.shape)
    recurrent.set_weights([np.eye(6), np.eye(6)])  # h_t = x_t + mask * h_{t-1}
    per_unit = recurrent(ones, training=True).numpy().transpose(0, 2, 1).reshape(-1, 4)  # each row: one unit's steps
    kept = per_unit[:, 1] == 3.0
    assert 0 < kept.sum() < len(kept)
    np.testing.assert_array_equal(per_unit[kept], [[1, 3, 7, 15]] * kept.sum())  # 1, 1 + 2 * 1, 1 + 2 * 3, ...
    np.testing.assert_array_equal(per_unit[~kept], np.ones(((~kept).sum(), 4)))  # dropped: the state never recurs

    for kind in ("LSTM", "GRU"):  # the gated layers drop too, and only while training
        gated = getattr(layers, kind)(4, dropout=0.3, recurrent_dropout=0.3)
        assert not np.allclose(gated(ones, training=True).numpy(), gated(ones).numpy())
        np.testing.assert_array_equal(gated(ones).numpy(), gated(ones).numpy())


def sum_data(n: int = 256, steps: int = 8) -> tuple[np.ndarray, np.ndarray]:
    x = np.random.default_rng(0).uniform(-1, 1, size=(n, steps, 1)).astype(np.float32)
    return x, x.sum(axis=1)


@pytest.mark.parametrize("kind", GATES)
def test_a_sequential_model_learns_the_sum_of_a_sequence_with_fit(kind):
    x, y = sum_data()
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((8, 1)), getattr(layers, kind)(8), layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss="mse")
    losses = model.fit(x, y, epochs=15, batch_size=32, verbose=0).history["loss"]
    assert losses[-1] < 0.1 * losses[0]


def test_a_functional_model_remembers_the_first_step():
    x, _ = sum_data()
    y = x[:, 0]  # only the first step matters: the state must carry it through the next 7
    keras.utils.set_random_seed(0)
    inputs = keras.Input((None, 1))  # any number of steps
    h = layers.GRU(8, return_sequences=True)(inputs)
    assert h.shape == (None, None, 8)
    h = layers.LSTM(8, dropout=0.1)(h)
    model = keras.Model(inputs, layers.Dense(1)(h))
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss="mse")
    losses = model.fit(x, y, epochs=20, batch_size=32, verbose=0).history["loss"]
    assert losses[-1] < 0.05 * losses[0]
    assert model.predict(x[:4, :5], verbose=0).shape == (4, 1)  # shorter sequences go through too


def test_embedding_lstm_dense_learns_which_token_comes_first():
    rng = np.random.default_rng(0)
    tokens = rng.integers(3, 10, size=(256, 6))
    y = np.zeros(256, np.float32)
    for row in range(256):
        a, b = rng.choice(6, 2, replace=False)
        tokens[row, a], tokens[row, b] = 1, 2
        y[row] = a < b  # does token 1 come before token 2?
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [keras.Input((6,), dtype="int64"), layers.Embedding(10, 8), layers.LSTM(8), layers.Dense(1, "sigmoid")]
    )
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss="binary_crossentropy", metrics=["accuracy"])
    history = model.fit(tokens, y, epochs=15, batch_size=32, verbose=0).history
    assert history["loss"][-1] < 0.1 * history["loss"][0] and history["accuracy"][-1] > 0.95


def test_summary_shows_keras_3s_output_shapes_and_parameter_counts(capsys):
    model = keras.Sequential(
        [keras.Input((5, 4)), layers.LSTM(3, return_sequences=True), layers.GRU(2), layers.Dense(1)]
    )
    model.summary()
    printed = capsys.readouterr().out
    # Keras 3.15's summary of the same model: (None, 5, 3) with 96 parameters, (None, 2) with 42
    assert "(None, 5, 3)" in printed and "(None, 2)" in printed
    assert " 96 " in printed and " 42 " in printed and "Total params: 141" in printed


def test_initial_state_and_return_state_in_a_functional_model():
    x, h0, c0 = sequences()
    inputs, h_in, c_in = keras.Input((None, 4)), keras.Input((3,)), keras.Input((3,))
    lstm = layers.LSTM(3, return_state=True)
    output, h, c = lstm(inputs, initial_state=[h_in, c_in])
    assert output.shape == h.shape == c.shape == (None, 3)
    encoder_decoder = layers.GRU(3, return_sequences=True)(inputs, initial_state=h)  # a state feeds a layer
    model = keras.Model([inputs, h_in, c_in], [encoder_decoder, c])
    got_sequence, got_c = model([x, h0, c0])
    _, eager_h, eager_c = lstm(x, initial_state=[h0, c0])
    np.testing.assert_allclose(got_c.numpy(), eager_c.numpy(), rtol=1e-6)
    gru = model.layers[-1]
    np.testing.assert_allclose(got_sequence.numpy(), gru(x, initial_state=eager_h).numpy(), rtol=1e-6)
    assert got_sequence.shape == (2, 3, 3)


def test_get_config_rebuilds_the_layer_with_new_weights():
    layer = layers.GRU(4, recurrent_activation="tanh", reset_after=False, return_sequences=True, dropout=0.2)
    config = layer.get_config()
    assert config["units"] == 4 and config["reset_after"] is False and config["return_sequences"] is True
    assert config["recurrent_initializer"] == "orthogonal" and config["recurrent_activation"] == "tanh"
    copy = layers.GRU.from_config({**config, "name": "copy"})
    x = sequences()[0]
    assert copy(x).shape == layer(x).shape == (2, 3, 4)
    assert copy.cell.reset_after is False and copy.dropout == 0.2
    assert not np.allclose(copy.get_weights()[0], layer.get_weights()[0])
    wrapped = layers.RNN(layers.SimpleRNNCell(2))
    assert layers.RNN.from_config(wrapped.get_config()).cell is not wrapped.cell  # no two layers share a cell


def test_bidirectional_gives_the_numbers_keras_3_gives():
    x, h0, c0 = sequences()
    cases = [
        ("LSTM", "concat", {"return_sequences": True}),
        ("GRU", "sum", {"return_state": True}),
        ("SimpleRNN", "ave", {"return_sequences": True}),
        ("SimpleRNN", "mul", {}),
        ("GRU", None, {"return_sequences": True}),
    ]
    for kind, merge_mode, kwargs in cases:
        layer = layers.Bidirectional(getattr(layers, kind)(3, **kwargs), merge_mode=merge_mode)
        layer.build((2, 3, 4))
        layer.set_weights(keras_weights(kind, seed=0) + keras_weights(kind, seed=5))  # forward's, then backward's
        assert_keras_numbers(layer(x), KERAS_3_BIDIRECTIONAL[f"{kind} {merge_mode} {sorted(kwargs)}"])
    layer = layers.Bidirectional(layers.LSTM(3, return_state=True))
    layer.build((2, 3, 4))
    layer.set_weights(keras_weights("LSTM", seed=0) + keras_weights("LSTM", seed=5))
    # (output, forward h, forward c, backward h, backward c); initial_state: the forward states, then the backward
    assert_keras_numbers(layer(x, initial_state=[h0, c0, c0, h0]), KERAS_3_BIDIRECTIONAL["LSTM initial_state concat"])


def test_bidirectional_weights_gradients_and_model():
    wrapped = layers.LSTM(3, return_sequences=True)
    both = layers.Bidirectional(wrapped)
    model = keras.Sequential([keras.Input((5, 4)), both, layers.Bidirectional(layers.SimpleRNN(2), merge_mode="sum")])
    # Keras 3.15: 'bidirectional/forward_lstm/lstm_cell/kernel', ...; the wrapped layer is copied, not used
    assert [w.name for w in both.weights[:1] + both.weights[3:4]] == [
        "bidirectional/forward_lstm/lstm_cell/kernel:0",
        "bidirectional/backward_lstm/lstm_cell/kernel:0",
    ]
    assert both.forward_layer is not wrapped and not wrapped.built and both.backward_layer.go_backwards
    assert both.count_params() == 192 and model.output_shape == (None, 2)
    assert both.output_shape == (None, 5, 6)
    x = np.random.default_rng(6).normal(size=(2, 5, 4))
    gru = layers.GRU(2, return_sequences=True, dtype="float64")
    layer = layers.Bidirectional(gru, merge_mode="mul", dtype="float64")
    check_gradients(lambda a: layer(a), [x])
    backward = layers.SimpleRNN(2, go_backwards=True, name="mine")
    custom = layers.Bidirectional(layers.SimpleRNN(2), backward_layer=backward)
    assert custom.backward_layer is backward and custom(x).shape == (2, 4)
    given = keras_weights("SimpleRNN", 2, 4, seed=1) + keras_weights("SimpleRNN", 2, 4, seed=2)
    preset = layers.Bidirectional(layers.SimpleRNN(2), weights=given)  # set when the layer is built
    preset(x)
    for got, want in zip(preset.get_weights(), given):
        np.testing.assert_array_equal(got, want)


def test_errors_say_what_is_wrong_and_how_to_fix_it():
    with pytest.raises(
        ValueError,
        match=r'"lstm" \(LSTM\).*expected a 3-D input \(batch, steps, features\), but received an input of shape '
        r"\(4, 10\)\. .*add the features axis: x\[\.\.\., None\].*add the steps axis: x\[:, None, :\]",
    ):
        layers.LSTM(3)(np.zeros((4, 10)))
    gru = layers.GRU(2)
    gru(np.zeros((1, 3, 4)))
    with pytest.raises(ValueError, match=r"expected axis -1 of the input to have size 4 \(the layer was built for"):
        gru(np.zeros((1, 3, 5)))
    with pytest.raises(ValueError, match=r"at least one time step"):
        layers.SimpleRNN(2)(np.zeros((2, 0, 3)))
    x = np.zeros((2, 3, 4))
    with pytest.raises(
        ValueError,
        match=r'LSTM "lstm_1": initial_state must be a list of 2 tensor\(s\), \[h, c\] \(h of shape \(2, 3\), c of '
        r"shape \(2, 3\): batch, units\), got 1",
    ):
        layers.LSTM(3)(x, initial_state=[np.zeros((2, 3))])
    with pytest.raises(ValueError, match=r"initial state c must have shape \(batch, units\) = \(2, 3\) .* has shape "):
        layers.LSTM(3)(x, initial_state=[np.zeros((2, 3)), np.zeros((3, 3))])
    with pytest.raises(ValueError, match=r"the mask must have shape \(batch, steps\) = \(2, 3\).*has shape \(2, 4\)"):
        layers.LSTM(2)(x, mask=np.ones((2, 4), bool))
    with pytest.raises(ValueError, match=r"dropout is the fraction of values dropped, in \[0, 1\); got 1.0"):
        layers.SimpleRNN(3, dropout=1.0)
    with pytest.raises(ValueError, match="units must be a positive integer, got 0"):
        layers.LSTM(0)
    with pytest.raises(ValueError, match=r"\(LSTMCell\).*one time step, a 2-D input.*keras.layers.RNN\(LSTMCell"):
        layers.LSTMCell(3)(x, [np.zeros((2, 3))] * 2)
    with pytest.raises(NotImplementedError, match=r"a list of cells.*return_sequences=True"):
        layers.RNN([layers.LSTMCell(2), layers.LSTMCell(2)])
    with pytest.raises(ValueError, match=r"the cell must have a method call\(inputs, states\).*state_size"):
        layers.RNN(layers.Dense(3))
    with pytest.raises(ValueError, match=r"Bidirectional: layer must be a recurrent layer"):
        layers.Bidirectional(layers.Dense(2))
    with pytest.raises(ValueError, match=r"merge_mode must be one of .*got 'max'"):
        layers.Bidirectional(layers.LSTM(2), merge_mode="max")
    with pytest.raises(ValueError, match=r"must read in opposite directions"):
        layers.Bidirectional(layers.LSTM(2), backward_layer=layers.LSTM(2))
    with pytest.raises(AttributeError, match="no tf.keras.layers.ConvLSTM2D: there is no convolutional LSTM"):
        layers.ConvLSTM2D  # noqa: B018


def test_regularizers_constraints_and_accepted_keras_arguments_reach_the_cell():
    layer = layers.LSTM(
        3, kernel_regularizer=keras.regularizers.L2(0.1), recurrent_constraint=keras.constraints.NonNeg(), unroll=True
    )
    x = sequences()[0]
    model = keras.Sequential([keras.Input((3, 4)), layer])
    kernel = layer.cell.kernel.numpy()
    assert len(layer.losses) == 1
    np.testing.assert_allclose(float(layer.losses[0]), 0.1 * np.sum(kernel**2), rtol=1e-5)
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    model.fit(x, np.ones((2, 3)), epochs=1, verbose=0)
    assert layer.cell.recurrent_kernel.numpy().min() >= 0  # the constraint is applied after each update
    assert layers.GRU(2, use_cudnn=False, seed=1, implementation=1).cell.per_gate_masks


# ---- stateful=True: each call goes on from the states the previous call ended with (Keras 3) -----------------
@pytest.mark.parametrize("kind", ["SimpleRNN", "LSTM", "GRU"])
def test_a_stateful_layer_reads_a_sequence_in_pieces_as_one(kind):
    x = np.random.default_rng(3).normal(size=(2, 6, 4)).astype("float32")
    whole = getattr(layers, kind)(3)
    expected = whole(x).numpy()
    pieces = getattr(layers, kind)(3, stateful=True)
    pieces(x[:, :2])
    pieces.set_weights(whole.get_weights())
    pieces.reset_states()
    for start in (0, 2):
        pieces(x[:, start : start + 2])
    np.testing.assert_allclose(pieces(x[:, 4:]).numpy(), expected, rtol=1e-5, atol=1e-6)
    assert len(pieces.weights) == len(whole.weights)  # the carried states are not weights, as in Keras 3
    assert [tuple(s.shape) for s in pieces.states] == [(2, 3)] * (2 if kind == "LSTM" else 1)
    assert all(not s.trainable for s in pieces.states) and whole.states is None
    pieces.reset_states()
    assert all(not s.numpy().any() for s in pieces.states)
    np.testing.assert_allclose(pieces(x).numpy(), expected, rtol=1e-5, atol=1e-6)  # afresh after the reset


def test_a_stateful_layers_gradient_stops_at_the_batch_before_and_its_states_start_another_layer():
    x = np.random.default_rng(4).normal(size=(2, 3, 4)).astype("float32")
    lstm = layers.LSTM(3, stateful=True)
    first = lstm(x)
    with mt.GradientTape() as tape:
        second = mt.reduce_sum(lstm(x))
    assert all(g is not None for g in tape.gradient(second, lstm.trainable_weights))
    assert not np.allclose(first.numpy(), lstm(x).numpy())  # it went on from where it was
    follow = layers.LSTM(3)  # "Working with RNNs": new_layer(x, initial_state=layer.states)
    assert follow(x, initial_state=lstm.states).shape == (2, 3)


def test_a_stateful_layer_needs_a_fixed_batch_size():
    lstm = layers.LSTM(3, stateful=True, name="carrier")
    lstm(np.zeros((2, 3, 4), "float32"))
    with pytest.raises(ValueError, match=r'LSTM "carrier" is stateful: .* built with, 2, .* got a batch of 3'):
        lstm(np.zeros((3, 3, 4), "float32"))
    with pytest.raises(ValueError, match=r"is stateful, so it needs to know its batch size: .*batch_size=32"):
        keras.Sequential([keras.Input((3, 4)), layers.GRU(2, stateful=True)])
    model = keras.Sequential([keras.Input((3, 4), batch_size=2), layers.GRU(2, stateful=True)])
    assert not model.layers[0].states[0].numpy().any()  # the placeholder runs leave no state behind
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 3, 4)), np.zeros((4, 2)), batch_size=2, shuffle=False, verbose=0)
    assert model.layers[0].states[0].numpy().any()


# ---- TimeDistributed: one layer on every step, as Keras 3 -------------------------------------------------
def test_time_distributed_applies_one_layer_to_every_step():
    wrapped = layers.TimeDistributed(layers.Dense(2, kernel_initializer="ones"))
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    y = wrapped(x)
    assert y.shape == (2, 3, 2) and y.numpy()[:, :, 0].tolist() == [[6, 22, 38], [54, 70, 86]]  # Keras 3's numbers
    assert [w.name for w in wrapped.weights] == ["time_distributed/dense/kernel:0", "time_distributed/dense/bias:0"]
    frames = keras.Input((5, 8, 8, 1))
    model = keras.Model(frames, layers.TimeDistributed(layers.Conv2D(3, 3))(frames))
    assert model.output_shape == (None, 5, 6, 6, 3) and model.count_params() == 30  # as Keras 3
    step = layers.Conv2D(3, 3)
    frames = np.random.default_rng(0).normal(size=(2, 5, 8, 8, 1)).astype("float32")
    per_frame = layers.TimeDistributed(step)(frames).numpy()
    np.testing.assert_allclose(per_frame[:, 4], step(frames[:, 4]).numpy(), rtol=1e-6)


def test_time_distributed_steps_share_the_weights_so_their_gradients_add():
    dense = layers.Dense(2, dtype="float64")
    wrapped = layers.TimeDistributed(dense, dtype="float64")
    x = np.random.default_rng(1).normal(size=(2, 3, 4))
    wrapped(x)
    check_gradients(lambda inputs, kernel: mt.tanh(wrapped(inputs)) * mt.reduce_sum(kernel), [x, dense.kernel])
    with mt.GradientTape() as tape:
        total = mt.reduce_sum(wrapped(x))
    np.testing.assert_allclose(tape.gradient(total, dense.kernel).numpy(), np.tile(x.sum(axis=(0, 1))[:, None], 2))


def test_time_distributed_refuses_what_keras_refuses_with_a_hint():
    with pytest.raises(ValueError, match=r"expected an input with at least 3 dimensions .* add the steps axis"):
        layers.TimeDistributed(layers.Dense(2))(np.ones((2, 3), "float32"))
    with pytest.raises(ValueError, match=r"with a `keras.layers.Layer` instance.*keras.layers.Lambda\(fn\)"):
        layers.TimeDistributed(lambda x: x)


def test_an_lstm_and_a_time_distributed_head_learn_a_running_sum():
    keras.utils.set_random_seed(0)
    x = np.random.default_rng(2).normal(size=(64, 6, 1)).astype("float32")
    y = np.cumsum(x, axis=1)
    model = keras.Sequential(
        [keras.Input((6, 1)), layers.LSTM(16, return_sequences=True), layers.TimeDistributed(layers.Dense(1))]
    )
    model.compile(keras.optimizers.Adam(0.02), "mse")
    history = model.fit(x, y, epochs=40, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < 0.1 * history.history["loss"][0]
