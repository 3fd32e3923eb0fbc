"""Port of TensorFlow's guide "Optimizers with Core APIs" (site/en/guide/core/optimizers_core).

The guide's cells run unchanged but for `import minitape as tf`, in order; figures go to matplotlib's Agg backend.
Cell numbers count the notebook's code cells from 1 (the licence cell). The notebook is stored without outputs.
Nothing here is random, so the outcome of each convergence test is fixed by float32 arithmetic: the expected
outcomes are those the guide's prose describes (plain gradient descent stalls on the plateau at the inflection
point for small rates and explodes for 0.1; momentum gets past it; Adam never explodes and reaches the minimum
at 0.1), with the iteration counts of a float32 numpy re-computation of the same updates.
"""

import re

import matplotlib
import pytest
from matplotlib import pyplot as plt

import minitape as tf

plt.switch_backend("Agg")  # figures are drawn off-screen; the tests check the parameter paths behind them
# Preset Matplotlib figure sizes.
matplotlib.rcParams["figure.figsize"] = [9, 6]

pytestmark = pytest.mark.usefixtures("keras_session")

GLOBAL_MINIMUM = -9 / 8  # loss'(x) = 8x³ + 9x² vanishes at 0 (the inflection point) and at -9/8


def test_cell_03_version_and_seed(capsys):
    print(tf.__version__)
    # set random seed for reproducible results
    tf.random.set_seed(22)
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*\n", capsys.readouterr().out)


def _gradient_descent_class():
    """Cell 4's class (a tf.Module subclass, so a missing tf.Module fails only the tests that use it)."""

    class GradientDescent(tf.Module):
        def __init__(self, learning_rate=1e-3):
            # Initialize parameters
            self.learning_rate = learning_rate
            self.title = f"Gradient descent optimizer: learning rate={self.learning_rate}"

        def apply_gradients(self, grads, vars):
            # Update variables
            for grad, var in zip(grads, vars):
                var.assign_sub(self.learning_rate * grad)

    return GradientDescent


x_vals = tf.linspace(-2, 2, 201)
x_vals = tf.cast(x_vals, tf.float32)


def loss(x):
    return 2 * (x**4) + 3 * (x**3) + 2


def grad(f, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        result = f(x)
    return tape.gradient(result, x)


def test_cell_05_the_loss_and_its_gradient():
    plt.plot(x_vals, loss(x_vals), c="k", label="Loss function")
    plt.plot(x_vals, grad(loss, x_vals), c="tab:blue", label="Gradient function")
    plt.plot(0, loss(0), marker="o", c="g", label="Inflection point")
    plt.plot(-9 / 8, loss(-9 / 8), marker="o", c="r", label="Global minimum")
    plt.legend()
    plt.ylim(0, 5)
    plt.xlabel("x")
    plt.ylabel("loss")
    plt.title("Sample loss function and gradient")
    plt.close("all")

    g = grad(loss, x_vals).numpy()
    xs = x_vals.numpy()
    assert g == pytest.approx(8 * xs**3 + 9 * xs**2, rel=1e-5, abs=1e-5)


def convergence_test(optimizer, loss_fn, grad_fn=grad, init_val=2.0, max_iters=2000):
    # Function for optimizer convergence test
    print(optimizer.title)
    print("-------------------------------")
    # Initializing variables and structures
    x_star = tf.Variable(init_val)
    param_path = []
    converged = False

    for iter in range(1, max_iters + 1):
        x_grad = grad_fn(loss_fn, x_star)

        # Case for exploding gradient
        if tf.math.is_nan(x_grad):
            print(f"Gradient exploded at iteration {iter}\n")
            return []

        # Updating the variable and storing its old-version
        x_old = x_star.numpy()
        optimizer.apply_gradients([x_grad], [x_star])
        param_path.append(x_star.numpy())

        # Checking for convergence
        if x_star == x_old:
            print(f"Converged in {iter} iterations\n")
            converged = True
            break

    # Print early termination message
    if not converged:
        print(f"Exceeded maximum of {max_iters} iterations. Test terminated.\n")
    return param_path


def _outcomes(out: str) -> list[str]:
    return re.findall(r"Gradient exploded at iteration \d+|Converged in \d+ iterations|Exceeded maximum of 2000", out)


def viz_paths(param_map, x_vals, loss_fn, title, max_iters=2000):
    # Creating a controur plot of the loss function
    t_vals = tf.range(1.0, max_iters + 100.0)
    t_grid, x_grid = tf.meshgrid(t_vals, x_vals)
    loss_grid = tf.math.log(loss_fn(x_grid))
    plt.pcolormesh(t_vals, x_vals, loss_grid, vmin=0, shading="nearest")
    colors = ["r", "w", "c"]
    # Plotting the parameter paths over the contour plot
    for i, learning_rate in enumerate(param_map):
        param_path = param_map[learning_rate]
        if len(param_path) > 0:
            x_star = param_path[-1]
            plt.plot(t_vals[: len(param_path)], param_path, c=colors[i])
            plt.plot(len(param_path), x_star, marker="o", c=colors[i], label=f"x*: learning rate={learning_rate}")
    plt.xlabel("Iterations")
    plt.ylabel("Parameter value")
    plt.legend()
    plt.title(f"{title} parameter paths")


def _gradient_descent_paths():
    """Cell 7."""
    GradientDescent = _gradient_descent_class()
    param_map_gd = {}
    learning_rates = [1e-3, 1e-2, 1e-1]
    for learning_rate in learning_rates:
        param_map_gd[learning_rate] = convergence_test(GradientDescent(learning_rate=learning_rate), loss_fn=loss)
    return param_map_gd


def test_cells_06_07_gradient_descent(capsys):
    param_map_gd = _gradient_descent_paths()

    out = capsys.readouterr().out
    assert out.count("Gradient descent optimizer: learning rate=") == 3
    assert _outcomes(out) == [
        "Exceeded maximum of 2000",
        "Exceeded maximum of 2000",
        "Gradient exploded at iteration 6",
    ]
    # the small rates stall on the plateau around the inflection point at 0
    assert 0 < param_map_gd[1e-3][-1] < 0.1 and 0 < param_map_gd[1e-2][-1] < 0.1
    assert param_map_gd[1e-1] == []


def test_cells_08_09_gradient_descent_paths_plot():
    param_map_gd = _gradient_descent_paths()
    viz_paths(param_map_gd, x_vals, loss, "Gradient descent")
    plt.close("all")


def _momentum_class():
    """Cell 10's class."""

    class Momentum(tf.Module):
        def __init__(self, learning_rate=1e-3, momentum=0.7):
            # Initialize parameters
            self.learning_rate = learning_rate
            self.momentum = momentum
            self.change = 0.0
            self.title = f"Gradient descent optimizer: learning rate={self.learning_rate}"

        def apply_gradients(self, grads, vars):
            # Update variables
            for grad, var in zip(grads, vars):
                curr_change = self.learning_rate * grad + self.momentum * self.change
                var.assign_sub(curr_change)
                self.change = curr_change

    return Momentum


def test_cells_10_12_momentum(capsys):
    Momentum = _momentum_class()

    param_map_mtm = {}
    learning_rates = [1e-3, 1e-2, 1e-1]
    for learning_rate in learning_rates:
        param_map_mtm[learning_rate] = convergence_test(
            Momentum(learning_rate=learning_rate), loss_fn=loss, grad_fn=grad
        )

    outcomes = _outcomes(capsys.readouterr().out)
    assert outcomes[0] == "Exceeded maximum of 2000" and outcomes[2] == "Gradient exploded at iteration 6"
    converged_in = int(re.fullmatch(r"Converged in (\d+) iterations", outcomes[1]).group(1))
    assert abs(converged_in - 80) <= 3  # 80 in float32 arithmetic; rounding may move the exact stop a little
    assert param_map_mtm[1e-2][-1] == pytest.approx(GLOBAL_MINIMUM, abs=1e-4)

    # cell 12, after the checks so that a failing plot does not hide them
    viz_paths(param_map_mtm, x_vals, loss, "Momentum")
    plt.close("all")


def _adam_class():
    """Cell 13's class."""

    class Adam(tf.Module):
        def __init__(self, learning_rate=1e-3, beta_1=0.9, beta_2=0.999, ep=1e-7):
            # Initialize the Adam parameters
            self.beta_1 = beta_1
            self.beta_2 = beta_2
            self.learning_rate = learning_rate
            self.ep = ep
            self.t = 1.0
            self.v_dvar, self.s_dvar = [], []
            self.title = f"Adam: learning rate={self.learning_rate}"
            self.built = False

        def apply_gradients(self, grads, vars):
            # Set up moment and RMSprop slots for each variable on the first call
            if not self.built:
                for var in vars:
                    v = tf.Variable(tf.zeros(shape=var.shape))
                    s = tf.Variable(tf.zeros(shape=var.shape))
                    self.v_dvar.append(v)
                    self.s_dvar.append(s)
                self.built = True
            # Perform Adam updates
            for i, (d_var, var) in enumerate(zip(grads, vars)):
                # Moment calculation
                self.v_dvar[i] = self.beta_1 * self.v_dvar[i] + (1 - self.beta_1) * d_var
                # RMSprop calculation
                self.s_dvar[i] = self.beta_2 * self.s_dvar[i] + (1 - self.beta_2) * tf.square(d_var)
                # Bias correction
                v_dvar_bc = self.v_dvar[i] / (1 - (self.beta_1**self.t))
                s_dvar_bc = self.s_dvar[i] / (1 - (self.beta_2**self.t))
                # Update model variables
                var.assign_sub(self.learning_rate * (v_dvar_bc / (tf.sqrt(s_dvar_bc) + self.ep)))
            # Increment the iteration counter
            self.t += 1.0

    return Adam


def test_cells_13_15_adam(capsys):
    Adam = _adam_class()

    param_map_adam = {}
    learning_rates = [1e-3, 1e-2, 1e-1]
    for learning_rate in learning_rates:
        param_map_adam[learning_rate] = convergence_test(Adam(learning_rate=learning_rate), loss_fn=loss)

    outcomes = _outcomes(capsys.readouterr().out)
    assert outcomes[:2] == ["Exceeded maximum of 2000", "Exceeded maximum of 2000"]
    converged_in = int(re.fullmatch(r"Converged in (\d+) iterations", outcomes[2]).group(1))  # no explosion
    assert abs(converged_in - 1156) <= 12  # 1156 in float32 arithmetic
    assert param_map_adam[1e-1][-1] == pytest.approx(GLOBAL_MINIMUM, abs=1e-3)
    assert param_map_adam[1e-3][-1] > 0  # slower: still on the way down to the plateau

    # cell 15, after the checks so that a failing plot does not hide them
    viz_paths(param_map_adam, x_vals, loss, "Adam")
    plt.close("all")
