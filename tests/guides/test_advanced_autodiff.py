"""Port of TensorFlow's guide "Advanced automatic differentiation" (site/en/guide/advanced_autodiff).

Each test runs some of the guide's code cells unchanged but for `import minitape as tf`, in the guide's order, and
checks what the guide prints or states. Cell numbers count the notebook's code cells from 1 (the licence cell).
The notebook is stored without outputs: the expected values are the ones its comments give or worked out by hand.
"""

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import pytest

import minitape as tf

plt.switch_backend("Agg")  # the guide's figures are drawn off-screen; the tests check the numbers behind them
mpl.rcParams["figure.figsize"] = (8, 6)

pytestmark = pytest.mark.usefixtures("keras_session")


def _grad_lines(out: str) -> tuple[str, str]:
    dx, dy = out.splitlines()
    return dx, dy


def test_cell_03_stop_recording(capsys):
    x = tf.Variable(2.0)
    y = tf.Variable(3.0)

    with tf.GradientTape() as t:
        x_sq = x * x
        with t.stop_recording():
            y_sq = y * y
        z = x_sq + y_sq

    grad = t.gradient(z, {"x": x, "y": y})

    print("dz/dx:", grad["x"])  # 2*x => 4
    print("dz/dy:", grad["y"])
    dx, dy = _grad_lines(capsys.readouterr().out)
    assert dx.startswith("dz/dx: ") and "4.0" in dx
    assert dy == "dz/dy: None"


def test_cell_04_reset(capsys):
    x = tf.Variable(2.0)
    y = tf.Variable(3.0)
    reset = True

    with tf.GradientTape() as t:
        y_sq = y * y
        if reset:
            # Throw out all the tape recorded so far.
            t.reset()
        z = x * x + y_sq

    grad = t.gradient(z, {"x": x, "y": y})

    print("dz/dx:", grad["x"])  # 2*x => 4
    print("dz/dy:", grad["y"])
    dx, dy = _grad_lines(capsys.readouterr().out)
    assert dx.startswith("dz/dx: ") and "4.0" in dx
    assert dy == "dz/dy: None"


def test_cell_05_stop_gradient(capsys):
    x = tf.Variable(2.0)
    y = tf.Variable(3.0)

    with tf.GradientTape() as t:
        y_sq = y**2
        z = x**2 + tf.stop_gradient(y_sq)

    grad = t.gradient(z, {"x": x, "y": y})

    print("dz/dx:", grad["x"])  # 2*x => 4
    print("dz/dy:", grad["y"])
    dx, dy = _grad_lines(capsys.readouterr().out)
    assert dx.startswith("dz/dx: ") and "4.0" in dx
    assert dy == "dz/dy: None"


# Establish an identity operation, but clip during the gradient pass.
@tf.custom_gradient
def clip_gradients(y):
    def backward(dy):
        return tf.clip_by_norm(dy, 0.5)

    return y, backward


def test_cell_06_custom_gradient_clips(capsys):
    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        output = clip_gradients(v * v)
    print(t.gradient(output, v))  # calls "backward", which clips 4 to 2
    out = capsys.readouterr().out
    assert "2.0" in out and "shape=()" in out


def test_cell_07_custom_gradient_as_a_module_method():
    class MyModule(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec(None)])
        def call_custom_grad(self, x):
            return clip_gradients(x)

    model = MyModule()

    # Not in the guide: the method keeps the custom gradient, as the reloaded model of cell 8 shows
    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        output = model.call_custom_grad(v * v)
    assert t.gradient(output, v).numpy() == 2.0


def test_cell_08_saving_custom_gradients_is_not_there():
    model = object()  # cell 7's module; saving fails before it is looked at
    with pytest.raises(AttributeError, match="minitape has no tf.saved_model"):
        tf.saved_model.save(
            model, "saved_model", options=tf.saved_model.SaveOptions(experimental_custom_gradients=True)
        )


def test_cells_09_11_two_tapes_at_once():
    x0 = tf.constant(0.0)
    x1 = tf.constant(0.0)

    with tf.GradientTape() as tape0, tf.GradientTape() as tape1:
        tape0.watch(x0)
        tape1.watch(x1)

        y0 = tf.math.sin(x0)
        y1 = tf.nn.sigmoid(x1)

        y = y0 + y1

        ys = tf.reduce_sum(y)

    assert tape0.gradient(ys, x0).numpy() == 1.0  # cos(x) => 1.0
    assert tape1.gradient(ys, x1).numpy() == 0.25  # sigmoid(x1)*(1-sigmoid(x1)) => 0.25


def test_cell_12_second_derivative(capsys):
    x = tf.Variable(1.0)  # Create a Tensorflow variable initialized to 1.0

    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            y = x * x * x

        # Compute the gradient inside the outer `t2` context manager
        # which means the gradient computation is differentiable as well.
        dy_dx = t1.gradient(y, x)
    d2y_dx2 = t2.gradient(dy_dx, x)

    print("dy_dx:", dy_dx.numpy())  # 3 * x**2 => 3.0
    print("d2y_dx2:", d2y_dx2.numpy())  # 6 * x => 6.0
    assert capsys.readouterr().out == "dy_dx: 3.0\nd2y_dx2: 6.0\n"


def test_cells_13_15_gradient_of_the_input_gradient_norm():
    x = tf.random.normal([7, 5])

    layer = tf.keras.layers.Dense(10, activation=tf.nn.relu)

    with tf.GradientTape() as t2:
        # The inner tape only takes the gradient with respect to the input,
        # not the variables.
        with tf.GradientTape(watch_accessed_variables=False) as t1:
            t1.watch(x)
            y = layer(x)
            out = tf.reduce_sum(layer(x) ** 2)
        # 1. Calculate the input gradient.
        g1 = t1.gradient(out, x)
        # 2. Calculate the magnitude of the input gradient.
        g1_mag = tf.norm(g1)

    # 3. Calculate the gradient of the magnitude with respect to the model.
    dg1_mag = t2.gradient(g1_mag, layer.trainable_variables)

    assert [var.shape for var in dg1_mag] == [(5, 10), (10,)]
    assert y.shape == (7, 10)
    assert all(np.isfinite(g.numpy()).all() for g in dg1_mag)


def test_cells_16_18_jacobian_of_a_vector_with_respect_to_a_scalar(capsys):
    x = tf.linspace(-10.0, 10.0, 200 + 1)
    delta = tf.Variable(0.0)

    with tf.GradientTape() as tape:
        y = tf.nn.sigmoid(x + delta)

    dy_dx = tape.jacobian(y, delta)

    print(y.shape)
    print(dy_dx.shape)
    assert capsys.readouterr().out == "(201,)\n(201,)\n"

    plt.plot(x.numpy(), y, label="y")
    plt.plot(x.numpy(), dy_dx, label="dy/dx")
    plt.legend()
    _ = plt.xlabel("x")
    plt.close("all")

    s = y.numpy()
    np.testing.assert_allclose(dy_dx.numpy(), s * (1 - s), rtol=1e-5, atol=1e-7)


def test_cells_19_22_jacobian_with_respect_to_a_kernel(capsys):
    x = tf.random.normal([7, 5])
    layer = tf.keras.layers.Dense(10, activation=tf.nn.relu)

    with tf.GradientTape(persistent=True) as tape:
        y = layer(x)

    assert y.shape == (7, 10)
    assert layer.kernel.shape == (5, 10)

    j = tape.jacobian(y, layer.kernel)
    assert j.shape == (7, 10, 5, 10)

    g = tape.gradient(y, layer.kernel)
    print("g.shape:", g.shape)

    j_sum = tf.reduce_sum(j, axis=[0, 1])
    delta = tf.reduce_max(abs(g - j_sum)).numpy()
    assert delta < 1e-3
    print("delta:", delta)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "g.shape: (5, 10)"
    assert lines[1].startswith("delta: ")


def _hessian_of_a_two_layer_model():
    """Cells 23 and 25: the Hessian of a small model's loss with respect to its first kernel."""
    x = tf.random.normal([7, 5])
    layer1 = tf.keras.layers.Dense(8, activation=tf.nn.relu)
    layer2 = tf.keras.layers.Dense(6, activation=tf.nn.relu)

    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            x = layer1(x)
            x = layer2(x)
            loss = tf.reduce_mean(x**2)

        g = t1.gradient(loss, layer1.kernel)

    h = t2.jacobian(g, layer1.kernel)
    return layer1, g, h


def test_cells_23_24_hessian_shape(capsys):
    layer1, g, h = _hessian_of_a_two_layer_model()

    print(f"layer.kernel.shape: {layer1.kernel.shape}")
    print(f"h.shape: {h.shape}")
    assert capsys.readouterr().out == "layer.kernel.shape: (5, 8)\nh.shape: (5, 8, 5, 8)\n"


def imshow_zero_center(image, **kwargs):
    lim = tf.reduce_max(abs(image))
    plt.imshow(image, vmin=-lim, vmax=lim, cmap="seismic", **kwargs)
    plt.colorbar()


def test_cells_25_27_hessian_as_a_matrix():
    layer1, g, h = _hessian_of_a_two_layer_model()

    n_params = tf.reduce_prod(layer1.kernel.shape)

    g_vec = tf.reshape(g, [n_params, 1])
    h_mat = tf.reshape(h, [n_params, n_params])

    imshow_zero_center(h_mat)
    plt.close("all")

    assert int(n_params) == 40
    assert g_vec.shape == (40, 1) and h_mat.shape == (40, 40)
    np.testing.assert_allclose(h_mat.numpy(), h_mat.numpy().T, atol=1e-5)  # a Hessian is symmetric


def test_cells_28_29_newton_step_with_linalg_solve():
    layer1, g, h = _hessian_of_a_two_layer_model()
    n_params = tf.reduce_prod(layer1.kernel.shape)
    g_vec = tf.reshape(g, [n_params, 1])
    h_mat = tf.reshape(h, [n_params, n_params])
    kernel_before = layer1.kernel.numpy()

    eps = 1e-3
    eye_eps = tf.eye(h_mat.shape[0]) * eps

    # X(k+1) = X(k) - (∇²f(X(k)))^-1 @ ∇f(X(k))
    # h_mat = ∇²f(X(k))
    # g_vec = ∇f(X(k))
    update = tf.linalg.solve(h_mat + eye_eps, g_vec)

    # Reshape the update and apply it to the variable.
    _ = layer1.kernel.assign_sub(tf.reshape(update, layer1.kernel.shape))

    np.testing.assert_allclose((h_mat + eye_eps).numpy() @ update.numpy(), g_vec.numpy(), atol=1e-4)
    np.testing.assert_allclose(layer1.kernel.numpy(), kernel_before - update.numpy().reshape(5, 8), atol=1e-6)


def plot_as_patches(j):
    # Reorder axes so the diagonals will each form a contiguous patch.
    j = tf.transpose(j, [1, 0, 3, 2])
    # Pad in between each patch.
    lim = tf.reduce_max(abs(j))
    j = tf.pad(j, [[0, 0], [1, 1], [0, 0], [1, 1]], constant_values=-lim)
    # Reshape to form a single image.
    s = j.shape
    j = tf.reshape(j, [s[0] * s[1], s[2] * s[3]])
    imshow_zero_center(j, extent=[-0.5, s[2] - 0.5, s[0] - 0.5, -0.5])


def test_cells_30_36_batch_jacobian(capsys):
    x = tf.random.normal([7, 5])

    layer1 = tf.keras.layers.Dense(8, activation=tf.nn.elu)
    layer2 = tf.keras.layers.Dense(6, activation=tf.nn.elu)

    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = layer1(x)
        y = layer2(y)

    assert y.shape == (7, 6)

    j = tape.jacobian(y, x)
    assert j.shape == (7, 6, 7, 5)

    imshow_zero_center(j[:, 0, :, 0])
    _ = plt.title("A (batch, batch) slice")

    plot_as_patches(j)
    _ = plt.title("All (batch, batch) slices are diagonal")
    plt.close("all")

    j_sum = tf.reduce_sum(j, axis=2)
    print(j_sum.shape)
    j_select = tf.einsum("bxby->bxy", j)
    print(j_select.shape)

    jb = tape.batch_jacobian(y, x)
    assert jb.shape == (7, 6, 5)

    error = tf.reduce_max(abs(jb - j_sum))
    assert error < 1e-3
    print(error.numpy())
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["(7, 6, 5)", "(7, 6, 5)"]
    assert float(lines[2]) < 1e-3
    np.testing.assert_allclose(j_select.numpy(), jb.numpy(), atol=1e-6)


def test_cells_37_39_batch_norm_mixes_the_batch(capsys):
    x = tf.random.normal([7, 5])

    layer1 = tf.keras.layers.Dense(8, activation=tf.nn.elu)
    bn = tf.keras.layers.BatchNormalization()
    layer2 = tf.keras.layers.Dense(6, activation=tf.nn.elu)

    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = layer1(x)
        y = bn(y, training=True)
        y = layer2(y)

    j = tape.jacobian(y, x)
    print(f"j.shape: {j.shape}")

    plot_as_patches(j)

    _ = plt.title("These slices are not diagonal")
    _ = plt.xlabel("Don't use `batch_jacobian`")
    plt.close("all")

    jb = tape.batch_jacobian(y, x)
    print(f"jb.shape: {jb.shape}")
    assert capsys.readouterr().out == "j.shape: (7, 6, 7, 5)\njb.shape: (7, 6, 5)\n"

    # what the guide's figure shows: with batch statistics, an output depends on other examples' inputs
    off_diagonal = j.numpy()[0, :, 1, :]
    assert np.abs(off_diagonal).max() > 1e-4
