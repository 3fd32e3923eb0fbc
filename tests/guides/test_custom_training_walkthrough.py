# ruff: noqa: UP032 - the tutorial's str.format calls are kept as written
"""Port of TensorFlow's tutorial "Custom training: walkthrough" (tutorials/customization/custom_training_walkthrough).

The tutorial classifies penguins it downloads with TensorFlow Datasets. Here the iris flowers bundled with
scikit-learn stand in: like the processed penguins, four float features and three classes, so the model, loss,
training loop and evaluation cells run unchanged but for `import minitape as tf`. The edits: the download and
preview cells (2 to 4, 6) build the same split from iris, the class names are iris's, and cell 22's three new
examples are iris measurements. Cell numbers count the notebook's code cells from 1 (the licence cell).
"""

import re

import matplotlib.pyplot as plt
import numpy as np
import pytest
from sklearn.datasets import load_iris

import minitape as tf

plt.switch_backend("Agg")  # figures are drawn off-screen; the tests check the numbers behind them

pytestmark = pytest.mark.usefixtures("keras_session")

class_names = ["setosa", "versicolor", "virginica"]  # in place of cell 5's penguin species


def _iris_split():
    """Cells 4 and 6's data: 20% of the shuffled examples to test, 80% to train, as (float32 x, int64 label)."""
    features, labels = load_iris(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(labels))
    features, labels = features[order].astype(np.float32), labels[order].astype(np.int64)
    n_test = len(labels) // 5
    ds_test = tf.data.Dataset.from_tensor_slices((features[:n_test], labels[:n_test]))
    ds_train = tf.data.Dataset.from_tensor_slices((features[n_test:], labels[n_test:]))
    return ds_test, ds_train


def _model():
    """Cell 9."""
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Dense(10, activation=tf.nn.relu, input_shape=(4,)),  # input shape required
            tf.keras.layers.Dense(10, activation=tf.nn.relu),
            tf.keras.layers.Dense(3),
        ]
    )
    return model


loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def loss(model, x, y, training):
    # training=training is needed only if there are layers with different
    # behavior during training versus inference (e.g. Dropout).
    y_ = model(x, training=training)

    return loss_object(y_true=y, y_pred=y_)


def grad(model, inputs, targets):
    with tf.GradientTape() as tape:
        loss_value = loss(model, inputs, targets, training=True)
    return loss_value, tape.gradient(loss_value, model.trainable_variables)


def test_cells_06_08_the_first_batch():
    ds_test, ds_train = _iris_split()
    assert isinstance(ds_test, tf.data.Dataset)
    ds_train_batch = ds_train.batch(32)

    features, labels = next(iter(ds_train_batch))
    print(features)
    print(labels)

    plt.scatter(features[:, 0], features[:, 2], c=labels, cmap="viridis")

    plt.xlabel("Body Mass")
    plt.ylabel("Culmen Length")
    plt.show()
    plt.close("all")

    assert features.shape == (32, 4) and features.dtype == tf.float32
    assert labels.shape == (32,) and labels.dtype == tf.int64


def test_cells_09_14_an_untrained_model(capsys):
    ds_test, ds_train = _iris_split()
    features, labels = next(iter(ds_train.batch(32)))
    model = _model()

    predictions = model(features)
    assert predictions[:5].shape == (5, 3)

    probabilities = tf.nn.softmax(predictions[:5])
    np.testing.assert_allclose(probabilities.numpy().sum(axis=1), np.ones(5), rtol=1e-6)

    print("Prediction: {}".format(tf.math.argmax(predictions, axis=1)))
    print("    Labels: {}".format(labels))

    l = loss(model, features, labels, training=False)
    print("Loss test: {}".format(l))

    out = capsys.readouterr().out.splitlines()
    # "{}".format(tensor) is the numpy text, as TensorFlow prints it: "Prediction: [2 2 0 ...]"
    predicted = tf.math.argmax(predictions, axis=1).numpy()
    assert out[0] == f"Prediction: {predicted}" and "shape" not in out[0]
    assert out[1] == f"    Labels: {labels.numpy()}"
    expected = -np.log(tf.nn.softmax(predictions).numpy()[np.arange(32), labels.numpy()]).mean()
    assert l.numpy() == pytest.approx(expected, rel=1e-5)
    assert out[2].startswith("Loss test: ") and f"{expected:.4f}"[:5] in out[2]


def test_cells_15_17_one_optimizer_step(capsys):
    ds_test, ds_train = _iris_split()
    features, labels = next(iter(ds_train.batch(32)))
    model = _model()

    optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)

    loss_value, grads = grad(model, features, labels)

    print("Step: {}, Initial Loss: {}".format(optimizer.iterations.numpy(), loss_value.numpy()))

    optimizer.apply_gradients(zip(grads, model.trainable_variables))

    print(
        "Step: {},         Loss: {}".format(
            optimizer.iterations.numpy(), loss(model, features, labels, training=True).numpy()
        )
    )

    first, second = capsys.readouterr().out.splitlines()
    step0, loss0 = re.fullmatch(r"Step: (\d+), Initial Loss: ([\d.e-]+)", first).groups()
    step1, loss1 = re.fullmatch(r"Step: (\d+),         Loss: ([\d.e-]+)", second).groups()
    assert (step0, step1) == ("0", "1")
    assert float(loss1) < float(loss0)  # one small step down the gradient lowers this batch's loss


def test_cells_18_22_training_and_evaluation(capsys):
    ds_test, ds_train = _iris_split()
    ds_train_batch = ds_train.batch(32)
    model = _model()
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)

    ## Note: Rerunning this cell uses the same model parameters

    # Keep results for plotting
    train_loss_results = []
    train_accuracy_results = []

    num_epochs = 201

    for epoch in range(num_epochs):
        epoch_loss_avg = tf.keras.metrics.Mean()
        epoch_accuracy = tf.keras.metrics.SparseCategoricalAccuracy()

        # Training loop - using batches of 32
        for x, y in ds_train_batch:
            # Optimize the model
            loss_value, grads = grad(model, x, y)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

            # Track progress
            epoch_loss_avg.update_state(loss_value)  # Add current batch loss
            # Compare predicted label to actual label
            # training=True is needed only if there are layers with different
            # behavior during training versus inference (e.g. Dropout).
            epoch_accuracy.update_state(y, model(x, training=True))

        # End epoch
        train_loss_results.append(epoch_loss_avg.result())
        train_accuracy_results.append(epoch_accuracy.result())

        if epoch % 50 == 0:
            print(
                "Epoch {:03d}: Loss: {:.3f}, Accuracy: {:.3%}".format(
                    epoch, epoch_loss_avg.result(), epoch_accuracy.result()
                )
            )

    fig, axes = plt.subplots(2, sharex=True, figsize=(12, 8))
    fig.suptitle("Training Metrics")

    axes[0].set_ylabel("Loss", fontsize=14)
    axes[0].plot(train_loss_results)

    axes[1].set_ylabel("Accuracy", fontsize=14)
    axes[1].set_xlabel("Epoch", fontsize=14)
    axes[1].plot(train_accuracy_results)
    plt.show()
    plt.close("all")

    test_accuracy = tf.keras.metrics.Accuracy()
    ds_test_batch = ds_test.batch(10)

    for x, y in ds_test_batch:
        # training=False is needed only if there are layers with different
        # behavior during training versus inference (e.g. Dropout).
        logits = model(x, training=False)
        prediction = tf.math.argmax(logits, axis=1, output_type=tf.int64)
        test_accuracy(prediction, y)

    print("Test set accuracy: {:.3%}".format(test_accuracy.result()))

    pairs = tf.stack([y, prediction], axis=1)
    assert pairs.shape == (10, 2) and pairs.dtype == tf.int64

    # Iris measurements in place of the tutorial's penguins, one of each species
    predict_dataset = tf.convert_to_tensor(
        [
            [5.1, 3.3, 1.7, 0.5],
            [5.9, 3.0, 4.2, 1.5],
            [6.9, 3.1, 5.4, 2.1],
        ]
    )

    # training=False is needed only if there are layers with different
    # behavior during training versus inference (e.g. Dropout).
    predictions = model(predict_dataset, training=False)

    for i, logits in enumerate(predictions):
        class_idx = tf.math.argmax(logits).numpy()
        p = tf.nn.softmax(logits)[class_idx]
        name = class_names[class_idx]
        print("Example {} prediction: {} ({:4.1f}%)".format(i, name, 100 * p))

    out = capsys.readouterr().out
    epochs = re.findall(r"Epoch (\d{3}): Loss: ([\d.]+), Accuracy: ([\d.]+)%", out)
    assert [e for e, _, _ in epochs] == ["000", "050", "100", "150", "200"]
    losses = [float(l) for _, l, _ in epochs]
    assert losses[-1] < losses[0] / 2
    assert float(epochs[-1][2]) > 90.0
    assert float(train_accuracy_results[-1]) > 0.9
    assert float(re.search(r"Test set accuracy: ([\d.]+)%", out).group(1)) > 85.0
    examples = re.findall(r"Example (\d) prediction: (\w+) \( ?([\d.]+)%\)", out)
    assert [(i, name) for i, name, _ in examples] == [("0", "setosa"), ("1", "versicolor"), ("2", "virginica")]
