"""Lesson 08: gradients of a model, and a custom training loop next to `fit`."""

from nb import code, md, solution, volatile

NAME = "08_model_and_training_loop.ipynb"
TITLE = "Gradients of a model and a custom training loop"

CELLS = [
    md(r"""
    # Lesson 8 · Gradients of a model and a custom training loop

    **Learning goals.** After this lesson you can
    - list a model's trainable variables and take the gradient of a loss with respect to all of them;
    - train a small convolutional network with `model.compile()` / `model.fit()`;
    - write the same training as a loop around `GradientTape`: forward pass, loss, `tape.gradient`,
      `optimizer.apply_gradients`; and show that both give the same weights;
    - look at one training step's tape, grouped by layer;
    - customise the training step by overriding `Model.train_step`, and keep `fit`.

    **A training step** is one gradient-descent update of every parameter $\theta$ on a batch $B$:

    $$L(\theta) = \frac{1}{|B|} \sum_{(x, y) \in B} \ell\big(f_\theta(x), y\big), \qquad
      \theta \leftarrow \theta - \eta\, \nabla_\theta L(\theta)$$

    (Adam, used below, rescales the step per parameter, but it needs exactly the same gradient.) The gradient with
    respect to tens of thousands of parameters is one reverse pass over the tape.
    """),
    code("""
    import matplotlib.pyplot as plt
    import numpy as np

    import minitape as mt
    from lesson_tools import check

    keras = mt.keras
    """),
    md("""
    ## 1. The data: 8×8 handwritten digits

    `keras.datasets.digits.load_data()` returns the small digits set that scikit-learn bundles (1,797 images of
    8×8 pixels, grey levels 0 to 16), split once and for all into training and test sets. It works offline.
    """),
    code("""
    (x_train, y_train), (x_test, y_test) = keras.datasets.digits.load_data()
    x_train = (x_train[..., np.newaxis] / 16.0).astype("float32")  # NHWC, values in [0, 1]
    x_test = (x_test[..., np.newaxis] / 16.0).astype("float32")
    print("train:", x_train.shape, y_train.shape, " test:", x_test.shape, y_test.shape)
    print("first labels:", y_train[:10])
    """),
    volatile("""
    fig, axes = plt.subplots(1, 8, figsize=(8, 1.3))
    for ax, image, label in zip(axes, x_train, y_train):
        ax.imshow(image[..., 0], cmap="gray_r")
        ax.set_title(int(label))
        ax.axis("off")
    plt.show()
    assert x_train.min() == 0.0 and x_train.max() == 1.0
    """),
    md("""
    ## 2. A model and its trainable variables

    A subclassed `keras.Model` creates its layers in `__init__` and says how to use them in `call`. Layers create
    their variables the first time they see an input, so we call the model once on a batch.
    """),
    code("""
    class DigitsCNN(keras.Model):
        def __init__(self):
            super().__init__()
            self.conv1 = keras.layers.Conv2D(8, 3, padding="same", activation="relu")
            self.pool1 = keras.layers.MaxPool2D()
            self.conv2 = keras.layers.Conv2D(16, 3, padding="same", activation="relu")
            self.pool2 = keras.layers.MaxPool2D()
            self.flatten = keras.layers.Flatten()
            self.hidden = keras.layers.Dense(64, activation="relu")
            self.logits = keras.layers.Dense(10)

        def call(self, x, training=False):
            x = self.pool1(self.conv1(x))
            x = self.pool2(self.conv2(x))
            return self.logits(self.hidden(self.flatten(x)))


    def new_model():
        keras.utils.set_random_seed(0)  # the same initial weights every time
        model = DigitsCNN()
        model(x_train[:1])  # build the layers
        return model


    model = new_model()
    for variable in model.trainable_variables:
        print(f"{variable.name:22s} {str(tuple(variable.shape)):16s} {int(np.prod(variable.shape)):6d} numbers")
    print("total:", sum(int(np.prod(v.shape)) for v in model.trainable_variables), "trainable parameters")
    """),
    md(r"""
    The loss on a batch, and its gradient with respect to every variable, in one backward pass. The loss works on
    *logits* (unnormalised scores): `from_logits=True` applies a numerically stable log-softmax inside. Per image,
    its gradient for the logits is $\mathrm{softmax}(z) - \mathrm{onehot}(y)$, computed by one fused op, as in
    TensorFlow. (With probability targets, `CategoricalCrossentropy`, TensorFlow's fused op keeps that rule,
    $\mathrm{softmax}(z) - y$, which is the true derivative only when each row of targets sums to 1; minitape
    does the same, so multi-hot targets train as in TensorFlow.)
    """),
    code("""
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    with mt.GradientTape() as tape:
        loss = loss_fn(y_train[:32], model(x_train[:32], training=True))
    gradients = tape.gradient(loss, model.trainable_variables)

    print(f"loss before training: {float(loss):.4f} (a uniform guess over 10 classes gives ln 10 = {np.log(10):.4f})")
    print("one gradient per variable, same shapes:",
          all(g.shape == v.shape for g, v in zip(gradients, model.trainable_variables)))
    """),
    md("""
    ## 3. Training with `fit`

    `compile` chooses the optimizer, the loss and the metrics; `fit` runs the epochs. (The per-epoch progress bar is
    switched off here, so that the saved notebook does not depend on the machine's speed; we print the history.
    The last digits of the losses depend on the machine's numpy build, so the tests check only that it learns.)
    """),
    volatile("""
    EPOCHS, BATCH = 5, 64

    fitted = new_model()
    fitted.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01), loss=loss_fn, metrics=["accuracy"])
    history = fitted.fit(x_train, y_train, batch_size=BATCH, epochs=EPOCHS, shuffle=False, verbose=0)

    for epoch, (loss, accuracy) in enumerate(zip(history.history["loss"], history.history["accuracy"]), 1):
        print(f"epoch {epoch}: loss {loss:.3f}, accuracy {accuracy:.1%}")
    test_loss, test_accuracy = fitted.evaluate(x_test, y_test, verbose=0)
    print(f"test accuracy: {test_accuracy:.1%}")
    assert history.history["loss"][-1] < history.history["loss"][0] / 5 and test_accuracy > 0.9
    """),
    md(r"""
    ## 4. The same training, written by hand

    This is what `fit` does for each batch. Every line matters:
    - the forward pass **and** the loss run inside the tape (outside, nothing is recorded: the gradients would be
      `None`, and `apply_gradients` says so);
    - `training=True` for layers that behave differently in training (dropout);
    - `tape.gradient(loss, model.trainable_variables)` then `apply_gradients(zip(gradients, variables))`.
    """),
    volatile("""
    def train_step(model, optimizer, x, y):
        with mt.GradientTape() as tape:
            logits = model(x, training=True)
            loss = loss_fn(y, logits)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return float(loss)


    looped = new_model()
    optimizer = keras.optimizers.Adam(learning_rate=0.01)
    step_losses = []
    for epoch in range(EPOCHS):
        for start in range(0, len(x_train), BATCH):  # the same batches, in the same order, as fit(shuffle=False)
            batch = slice(start, start + BATCH)
            step_losses.append(train_step(looped, optimizer, x_train[batch], y_train[batch]))

    predictions = np.argmax(looped.predict(x_test, verbose=0), axis=1)
    print(f"test accuracy: {np.mean(predictions == y_test):.1%}")
    assert np.mean(predictions == y_test) > 0.9
    """),
    md("""
    Same starting weights, same batches, same optimizer: the two models should be the same model. Are they?
    """),
    code("""
    differences = [np.max(np.abs(a - b)) for a, b in zip(fitted.get_weights(), looped.get_weights())]
    print("largest difference between the weights of fit and of the loop:", max(differences))
    assert max(differences) < 1e-4
    """),
    md("""
    The training loss of every step (noisy, since each batch differs) and `fit`'s average per epoch:
    """),
    volatile("""
    steps_per_epoch = len(step_losses) // EPOCHS
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(np.arange(1, len(step_losses) + 1), step_losses, label="hand-written loop, per step", alpha=0.7)
    ax.plot(np.arange(1, EPOCHS + 1) * steps_per_epoch, history.history["loss"], "o-", label="fit, mean per epoch")
    ax.set_xlabel("training step")
    ax.set_ylabel("loss")
    ax.set_yscale("log")
    ax.legend()
    plt.show()
    assert step_losses[-1] < step_losses[0] / 5
    """),
    md(r"""
    Why write the loop by hand, when `fit` exists? Because then you can change any step: clip or inspect gradients,
    train two networks against each other, add a penalty on the gradient itself (a nested tape), or log what you
    like. Everything else stays the same four lines.

    ## 5. One training step's tape, grouped by layer

    Each layer runs inside `mt.name_scope(layer.name)`, so its records carry the layer's name and the visualizer
    groups them into one collapsible box per layer. Record one step on a small batch.

    **What to look at.** The graph is big, so follow one thread at a time:
    - **left to right, the forward pass**: the image batch (a constant of shape `(4, 8, 8, 1)`) enters the model's
      box, which holds one box per layer (click a frame to fold or unfold it: each `conv2d` box is a `Conv2D`, an
      `AddV2` for the bias and a `Relu`). The loss has a box of its own at the right: one fused op
      `SparseSoftmaxCrossEntropyWithLogits` (log-softmax and the picked entries, one loss per image) and a `Mean`.
      Step (▶ or the slider) until the `Mean` shows the loss, near $\ln 10 \approx 2.3$ for an untrained model.
    - **right to left, the backward pass**: the seed $1$ starts at the `Mean`. Watch it enter the *last* `dense`
      box first: the last layer's variables get their gradients first, the first convolution's kernel last. That
      is the forward order reversed, as on the 40-line tape of lesson 2.
    - **the variables**: each kernel and bias is a node of its own inside its layer's box. Click one: its gradient
      has its shape (the first kernel, `(3, 3, 1, 8)`, gets a `(3, 3, 1, 8)` gradient).
    - **what is not there**: the optimizer. Adam's update happens after `tape.gradient`, outside the tape.
    """),
    volatile("""
    from minitape import widgets

    small = new_model()
    with mt.GradientTape(persistent=True) as tape:
        loss = loss_fn(y_train[:4], small(x_train[:4], training=True))

    view = widgets.TapeView(tape, loss, small.trainable_variables)
    assert view.n_steps > 2 * len(small.trainable_variables)
    view
    """),
    md(r"""
    ## 6. Keep `fit`, change the step: overriding `train_step`

    `fit` is a loop that calls `model.train_step(batch)` for every batch, and the default `train_step` is the
    hand-written step of section 4. So you can customise a step and keep everything else `fit` offers (epochs,
    batches, shuffling, callbacks, validation, the history): subclass the model and override `train_step`. It
    receives a batch `(x, y)` and returns the logs, a dict of metric values (`self.metrics` holds the loss tracker
    and, as in Keras 3, the compiled metrics as one metric whose result is a dict). Here the step clips each gradient to a
    norm of at most 1 before the update, a common guard against exploding gradients, and counts its calls to prove
    that `fit` really used it:
    """),
    volatile("""
    class ClippedDigitsCNN(DigitsCNN):
        steps_run = 0

        def train_step(self, data):
            x, y = data
            with mt.GradientTape() as tape:
                logits = self(x, training=True)
                loss = self.compute_loss(x, y, logits)
            gradients = tape.gradient(loss, self.trainable_variables)
            gradients = [mt.clip_by_norm(g, 1.0) for g in gradients]  # the customisation
            self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
            self.steps_run += 1
            for metric in self.metrics:  # the loss tracker, then the compiled metrics (as one, Keras 3's way)
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, logits)
            return {metric.name: metric.result() for metric in self.metrics}  # fit turns these into numbers


    keras.utils.set_random_seed(0)
    clipped = ClippedDigitsCNN()
    clipped.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01), loss=loss_fn, metrics=["accuracy"])
    clipped_history = clipped.fit(x_train, y_train, batch_size=BATCH, epochs=2, shuffle=False, verbose=0)

    batches = -(-len(x_train) // BATCH)
    print(f"fit called our train_step {clipped.steps_run} times (2 epochs x {batches} batches)")
    for epoch, (loss, accuracy) in enumerate(zip(clipped_history.history["loss"], clipped_history.history["accuracy"]), 1):
        print(f"epoch {epoch}: loss {loss:.3f}, accuracy {accuracy:.1%}")
    assert clipped.steps_run == 2 * batches
    assert clipped_history.history["loss"][1] < clipped_history.history["loss"][0]
    """),
    md(r"""
    Keras names the same hooks for evaluation (`test_step`, used by `evaluate`) and prediction. Override the step,
    not the loop: you keep the progress bar, the callbacks and the history for free.

    ## Exercises

    **Exercise 8.1.** A `keras.layers.Dense(3)` layer is called on inputs with 4 features. How many trainable
    variables does it have, and how many numbers do they hold in total? Answer with the pair
    `(variables, numbers)` (build one and look, or work it out from $y = xW + b$).
    """),
    code("""
    answer = ...  # (number of variables, number of numbers)

    check("8.1", answer)
    """),
    solution("""
    layer = keras.layers.Dense(3)
    layer(np.zeros((1, 4), dtype="float32"))
    answer = (len(layer.trainable_variables), sum(int(np.prod(v.shape)) for v in layer.trainable_variables))

    check("8.1", answer)
    """),
    md("""
    **Exercise 8.2.** Write `sgd_step(model, x, y, learning_rate)` by hand, **without an optimizer**: compute the
    mean squared error between `model(x)` and `y` with a tape, then update every trainable variable in place with
    `variable.assign_sub(learning_rate * gradient)`. Return the loss. The check trains a tiny model with it and
    compares with a reference.
    """),
    code("""
    def sgd_step(model, x, y, learning_rate):
        ...  # your code here


    check("8.2", sgd_step)
    """),
    solution("""
    def sgd_step(model, x, y, learning_rate):
        with mt.GradientTape() as tape:
            loss = mt.reduce_mean(mt.square(model(x) - y))
        gradients = tape.gradient(loss, model.trainable_variables)
        for variable, gradient in zip(model.trainable_variables, gradients):
            variable.assign_sub(learning_rate * gradient)
        return loss


    check("8.2", sgd_step)
    """),
    md("""
    ## Summary

    - A model's `trainable_variables` are the sources of its gradient; one reverse pass gives all of them.
    - `fit` runs a loop of training steps; a hand-written `train_step` is the same loop made visible: forward pass
      and loss inside the tape, `tape.gradient`, `optimizer.apply_gradients`. With the same weights, batches and
      optimizer they give the same model.
    - Writing the loop yourself is how you customise training; the tape of a step, grouped by layer, shows what it
      computes.
    - To customise a step but keep `fit`, override `train_step(self, data)`: `fit` calls it once per batch.

    Next: [lesson 9](09_forward_vs_reverse_mode.ipynb), forward mode and why training uses reverse mode.
    """),
]
