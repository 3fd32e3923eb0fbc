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
    """, ko=r"""
    # 8강 · 모델의 그래디언트와 사용자 정의 훈련 루프

    **학습 목표.** 이 강의를 마치면
    - 모델의 훈련 가능한 변수를 나열하고, 그 모두에 대한 손실의 그래디언트를 구할 수 있습니다.
    - `model.compile()` / `model.fit()`으로 작은 합성곱 신경망을 훈련할 수 있습니다.
    - 같은 훈련을 `GradientTape`을 둘러싼 루프로 쓸 수 있습니다. 순전파, 손실, `tape.gradient`,
      `optimizer.apply_gradients` 순서이고, 두 방법이 같은 가중치를 준다는 것을 보일 수 있습니다.
    - 훈련 스텝 하나의 테이프를 층별로 묶어 볼 수 있습니다.
    - `Model.train_step`을 재정의해서 훈련 스텝을 바꾸면서도 `fit`을 그대로 쓸 수 있습니다.

    **훈련 스텝**은 배치 $B$에 대해 모든 매개변수 $\theta$를 경사 하강법으로 한 번 갱신하는 것입니다.

    $$L(\theta) = \frac{1}{|B|} \sum_{(x, y) \in B} \ell\big(f_\theta(x), y\big), \qquad
      \theta \leftarrow \theta - \eta\, \nabla_\theta L(\theta)$$

    (아래에서 쓰는 Adam은 매개변수마다 스텝의 크기를 조정하지만, 필요한 그래디언트는 정확히 같습니다.) 수만 개의
    매개변수에 대한 그래디언트가 테이프를 거꾸로 한 번 훑는 것으로 나옵니다.
    """),
    code("""
    import matplotlib.pyplot as plt
    import numpy as np

    import minitape as mt
    from lesson_tools import check, say  # say(english, korean): the words of a plot, in the lesson's language

    keras = mt.keras
    """),
    md("""
    ## 1. The data: 8×8 handwritten digits

    `keras.datasets.digits.load_data()` returns the small digits set that scikit-learn bundles (1,797 images of
    8×8 pixels, grey levels 0 to 16), split once and for all into training and test sets. It works offline.
    """, ko=r"""
    ## 1. 데이터: 8×8 손글씨 숫자

    `keras.datasets.digits.load_data()`는 scikit-learn에 들어 있는 작은 숫자 데이터셋(8×8 픽셀, 회색조 0~16의
    이미지 1,797장)을 훈련 세트와 테스트 세트로 한 번 나누어 돌려줍니다. 인터넷 없이 동작합니다.
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
    """, ko=r"""
    ## 2. 모델과 그 훈련 가능한 변수

    `keras.Model`을 상속한 모델은 `__init__`에서 층을 만들고 `call`에서 그것을 어떻게 쓰는지 정합니다. 층은
    입력을 처음 볼 때 변수를 만들므로, 배치 하나로 모델을 한 번 호출해 둡니다.
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
    """, ko=r"""
    배치 하나에 대한 손실과, 모든 변수에 대한 그 그래디언트를 역전파 한 번으로 구합니다. 손실은 *로짓*(정규화되지
    않은 점수)을 받습니다. `from_logits=True`면 안에서 수치적으로 안정한 log-softmax를 적용합니다. 이미지마다
    로짓에 대한 그래디언트는 $\mathrm{softmax}(z) - \mathrm{onehot}(y)$이고, TensorFlow처럼 융합된 연산 하나로
    계산합니다. (확률 타깃을 받는 `CategoricalCrossentropy`에서도 TensorFlow의 융합 연산은 같은 규칙
    $\mathrm{softmax}(z) - y$를 씁니다. 이 식은 타깃의 각 행의 합이 1일 때만 참인 도함수입니다. minitape도 똑같이
    하므로, 멀티-핫 타깃도 TensorFlow에서와 같게 훈련됩니다.)
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
    """, ko=r"""
    ## 3. `fit`으로 훈련하기

    `compile`은 옵티마이저, 손실, 지표를 고르고, `fit`은 에포크를 돌립니다. (저장된 노트북이 기계 속도에 좌우되지
    않도록 에포크마다의 진행 막대는 껐고, 대신 기록(history)을 출력합니다. 손실의 마지막 자릿수는 기계의 numpy
    빌드에 따라 다르므로, 테스트는 학습이 되는지만 확인합니다.)
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
    """, ko=r"""
    ## 4. 같은 훈련을 직접 쓰기

    `fit`이 배치마다 하는 일이 이것입니다. 한 줄 한 줄이 중요합니다.
    - 순전파**와** 손실이 테이프 안에서 실행됩니다(밖이라면 아무것도 기록되지 않아 그래디언트가 `None`이 되고,
      `apply_gradients`가 그렇다고 알려 줍니다).
    - 훈련 때 다르게 동작하는 층(드롭아웃)을 위해 `training=True`를 줍니다.
    - `tape.gradient(loss, model.trainable_variables)`, 그다음 `apply_gradients(zip(gradients, variables))`입니다.
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
    """, ko=r"""
    시작 가중치도, 배치도, 옵티마이저도 같습니다. 두 모델은 같은 모델이어야 합니다. 정말 그럴까요?
    """),
    code("""
    differences = [np.max(np.abs(a - b)) for a, b in zip(fitted.get_weights(), looped.get_weights())]
    print("largest difference between the weights of fit and of the loop:", max(differences))
    assert max(differences) < 1e-4
    """),
    md("""
    The training loss of every step (noisy, since each batch differs) and `fit`'s average per epoch:
    """, ko=r"""
    스텝마다의 훈련 손실(배치마다 달라서 들쭉날쭉합니다)과 에포크마다의 `fit` 평균입니다.
    """),
    volatile("""
    steps_per_epoch = len(step_losses) // EPOCHS
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(np.arange(1, len(step_losses) + 1), step_losses, label=say("hand-written loop, per step", "직접 쓴 루프, 스텝마다"), alpha=0.7)
    ax.plot(np.arange(1, EPOCHS + 1) * steps_per_epoch, history.history["loss"], "o-", label=say("fit, mean per epoch", "fit, 에포크마다의 평균"))
    ax.set_xlabel(say("training step", "훈련 스텝"))
    ax.set_ylabel(say("loss", "손실"))
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
    """, ko=r"""
    `fit`이 있는데 왜 루프를 직접 쓸까요? 그래야 어느 단계든 바꿀 수 있기 때문입니다. 그래디언트를 자르거나
    들여다보고, 두 신경망을 서로 맞서게 훈련하고, 그래디언트 자체에 벌점을 주고(중첩 테이프), 원하는 것을 기록할 수
    있습니다. 나머지는 모두 같은 네 줄 그대로입니다.

    ## 5. 층별로 묶은 훈련 스텝 하나의 테이프

    층은 저마다 `mt.name_scope(layer.name)` 안에서 실행되므로, 그 기록에는 층의 이름이 붙고 시각화 도구는 층마다
    접을 수 있는 상자 하나로 묶어 보여 줍니다. 작은 배치로 스텝 하나를 기록해 봅시다.

    **무엇을 볼까.** 그래프가 크니 한 번에 한 줄기씩 따라가세요.
    - **왼쪽에서 오른쪽으로, 순전파**: 이미지 배치(shape `(4, 8, 8, 1)`인 상수)가 모델의 상자로 들어가고, 그 안에
      층마다 상자가 하나씩 있습니다(틀을 누르면 접히고 펼쳐집니다. `conv2d` 상자마다 `Conv2D`, 편향을 더하는
      `AddV2`, `Relu`가 있습니다). 손실은 오른쪽에 따로 상자가 있습니다. 합쳐진 연산 하나
      `SparseSoftmaxCrossEntropyWithLogits`(log-softmax와 고른 원소, 이미지마다 손실 하나)와 `Mean`입니다. `Mean`이
      손실을 보여 줄 때까지 단계를 넘기세요(▶ 또는 슬라이더). 훈련 전 모델이라면 $\ln 10 \approx 2.3$ 근처입니다.
    - **오른쪽에서 왼쪽으로, 역전파**: 시드 $1$은 `Mean`에서 출발합니다. 그것이 *마지막* `dense` 상자에 먼저
      들어가는 것을 보세요. 마지막 층의 변수가 가장 먼저, 첫 합성곱의 커널이 가장 나중에 그래디언트를 받습니다.
      2강의 40줄짜리 테이프에서처럼 순전파의 순서를 뒤집은 것입니다.
    - **변수**: 커널과 편향은 저마다 자기 층의 상자 안에 노드 하나로 있습니다. 하나를 눌러 보세요. 그래디언트는
      변수와 shape이 같습니다(첫 커널 `(3, 3, 1, 8)`은 `(3, 3, 1, 8)` 그래디언트를 받습니다).
    - **없는 것**: 옵티마이저입니다. Adam의 갱신은 `tape.gradient` 뒤에, 테이프 밖에서 일어납니다.
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
    that `fit` really used it.

    One thing to know first: `fit` runs the step as a `tf.function` (lesson 11), as Keras does, unless you compile
    with `run_eagerly=True`. Python code in the step runs only when the step is traced, so a Python counter
    (`self.steps_run += 1`) would count traces, not steps, and `.numpy()` on a batch raises. A variable's
    `assign_add` is part of the graph and runs at every step, so the count is kept in an `mt.Variable`:
    """, ko=r"""
    ## 6. `fit`은 그대로, 스텝만 바꾸기: `train_step` 재정의

    `fit`은 배치마다 `model.train_step(batch)`를 부르는 루프이고, 기본 `train_step`은 4절에서 직접 쓴 스텝입니다.
    그래서 스텝을 바꾸면서도 `fit`이 주는 나머지(에포크, 배치, 섞기, 콜백, 검증, 기록)를 모두 그대로 쓸 수
    있습니다. 모델을 상속하고 `train_step`을 재정의하면 됩니다. 이 메서드는 배치 `(x, y)`를 받아 로그, 곧 지표
    값의 dict를 돌려줍니다(`self.metrics`에는 손실 추적기와, Keras 3처럼 결과가 dict인 지표 하나로 묶인 컴파일된
    지표들이 있습니다). 여기서는 갱신 전에 그래디언트마다 노름이 1을 넘지 않도록 자르고(그래디언트 폭주를 막는
    흔한 방법입니다), `fit`이 정말 이 스텝을 썼는지 보이려고 호출 횟수를 셉니다.

    먼저 알아 둘 점이 있습니다. `fit`은 Keras처럼 스텝을 `tf.function`(11강)으로 실행합니다. `compile`에
    `run_eagerly=True`를 주면 예외입니다. 스텝 안의 파이썬 코드는 스텝이 트레이스될 때만 실행되므로, 파이썬
    카운터(`self.steps_run += 1`)는 스텝이 아니라 트레이스 횟수를 세고, 배치에 `.numpy()`를 부르면 오류가 납니다.
    변수의 `assign_add`는 그래프의 일부라서 스텝마다 실행되므로, 횟수는 `mt.Variable`에 셉니다.
    """),
    volatile("""
    steps_run = mt.Variable(0)  # counts at every step, also in the traced step


    class ClippedDigitsCNN(DigitsCNN):
        def train_step(self, data):
            x, y = data
            with mt.GradientTape() as tape:
                logits = self(x, training=True)
                loss = self.compute_loss(x, y, logits)
            gradients = tape.gradient(loss, self.trainable_variables)
            gradients = [mt.clip_by_norm(g, 1.0) for g in gradients]  # the customisation
            self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
            steps_run.assign_add(1)
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
    print(f"our train_step ran {int(steps_run)} times (2 epochs x {batches} batches)")
    for epoch, (loss, accuracy) in enumerate(zip(clipped_history.history["loss"], clipped_history.history["accuracy"]), 1):
        print(f"epoch {epoch}: loss {loss:.3f}, accuracy {accuracy:.1%}")
    assert int(steps_run) == 2 * batches
    assert clipped_history.history["loss"][1] < clipped_history.history["loss"][0]
    """),
    md(r"""
    Keras names the same hooks for evaluation (`test_step`, used by `evaluate`) and prediction. Override the step,
    not the loop: you keep the progress bar, the callbacks and the history for free.

    ## Exercises

    **Exercise 8.1.** A `keras.layers.Dense(3)` layer is called on inputs with 4 features. How many trainable
    variables does it have, and how many numbers do they hold in total? Answer with the pair
    `(variables, numbers)` (build one and look, or work it out from $y = xW + b$).
    """, ko=r"""
    Keras는 평가(`evaluate`가 쓰는 `test_step`)와 예측에도 같은 방식의 훅을 둡니다. 루프가 아니라 스텝을
    재정의하세요. 진행 막대, 콜백, 기록은 덤으로 따라옵니다.

    ## 연습 문제

    **연습 문제 8.1.** `keras.layers.Dense(3)` 층을 특성이 4개인 입력으로 호출합니다. 훈련 가능한 변수는 몇 개이고,
    그 변수들에 든 숫자는 모두 몇 개일까요? 쌍 `(variables, numbers)`로 답하세요(하나 만들어서 보거나,
    $y = xW + b$에서 계산해 보세요).
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
    """, ko=r"""
    **연습 문제 8.2.** **옵티마이저 없이** `sgd_step(model, x, y, learning_rate)`를 직접 작성하세요. 테이프로
    `model(x)`와 `y` 사이의 평균 제곱 오차를 계산하고, 훈련 가능한 변수마다
    `variable.assign_sub(learning_rate * gradient)`로 제자리에서 갱신합니다. 손실을 돌려주세요. 확인 함수가 이것으로
    작은 모델을 훈련해서 기준과 비교합니다.
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
    - To customise a step but keep `fit`, override `train_step(self, data)`: `fit` runs it once per batch, as a
      `tf.function` (its Python runs when it is traced; `compile(run_eagerly=True)` runs it as plain Python).

    Next: [lesson 9](09_forward_vs_reverse_mode.ipynb), forward mode and why training uses reverse mode.
    """, ko=r"""
    ## 정리

    - 모델의 `trainable_variables`가 그래디언트의 소스이고, 역전파 한 번이 그 모두를 줍니다.
    - `fit`은 훈련 스텝의 루프를 돌립니다. 직접 쓴 `train_step`은 그 루프를 눈에 보이게 만든 것입니다. 테이프
      안에서 순전파와 손실, `tape.gradient`, `optimizer.apply_gradients`. 가중치, 배치, 옵티마이저가 같으면 같은
      모델이 나옵니다.
    - 루프를 직접 쓰는 것이 훈련을 바꾸는 방법입니다. 층별로 묶은 스텝의 테이프가 그것이 무엇을 계산하는지
      보여 줍니다.
    - 스텝은 바꾸고 `fit`은 그대로 쓰려면 `train_step(self, data)`를 재정의하세요. `fit`이 배치마다 한 번,
      `tf.function`으로 실행합니다(파이썬 코드는 트레이스될 때 실행되고, `compile(run_eagerly=True)`면 보통의
      파이썬으로 실행됩니다).

    다음: [9강](09_forward_vs_reverse_mode.ipynb), 순방향 모드와 훈련에 역방향 모드를 쓰는 이유.
    """),
]
