"""Checkers for lesson 08: gradients of a model, training steps."""

from __future__ import annotations

import types

import numpy as np

import minitape as mt
from lesson_tools.checking import NotYet, as_number, call, exercise, expect_function, items
from lesson_tools.language import say

# Names whose use means an optimizer (or fit, which uses one) did the update instead of the student's assign_sub.
OPTIMIZER_NAMES = {"optimizers", "optimizer", "apply_gradients", "minimize", "fit", "compile", "SGD", "Adam", "RMSprop"}


_NUMBER_SLIPS = {
    12: (
        "12 numbers is the kernel alone: every trainable variable counts.",
        "12개는 커널뿐입니다. 훈련 가능한 변수를 모두 세세요.",
    ),
    3: ("3 numbers is the bias alone: the kernel (4, 3) counts too.", "3개는 편향뿐입니다. 커널 (4, 3)도 셉니다."),
    7: (
        "7 is 4 + 3, the kernel's shape added up: the kernel holds 4 × 3 numbers.",
        "7은 커널의 shape을 더한 4 + 3입니다. 커널에는 숫자가 4 × 3개 있습니다.",
    ),
    16: (
        "16 counts a bias per input (4 × 3 + 4); the bias has one number per unit, 3.",
        "16은 입력마다 편향을 센 것입니다(4 × 3 + 4). 편향은 유닛마다 하나, 3개입니다.",
    ),
}


@exercise(
    "8.1",
    "a Dense layer has a kernel W (inputs x units) and a bias b (units).",
    ko="Dense 층에는 커널 W(입력 수 x 유닛 수)와 편향 b(유닛 수)가 있습니다.",
)
def dense_variables(answer: object, evidence: object) -> str:
    pair = items(answer, 2, say("a pair: (number of variables, number of numbers)", "쌍 (변수의 수, 숫자의 수)"))
    names = (say("the number of variables", "변수의 수"), say("the number of numbers", "숫자의 수"))
    counts = [as_number(v, name) for v, name in zip(pair, names)]
    for count, name in zip(counts, names):
        if count != round(count):
            raise NotYet(
                say(f"{name} is {count:g}: a count is a whole number.", f"{name}: {count:g}입니다. 개수는 정수입니다.")
            )
    variables, numbers = (int(c) for c in counts)
    if variables == 15 and numbers == 2:
        raise NotYet(
            say("the pair is upside down: (variables, numbers).", "쌍의 순서가 바뀌었습니다: (변수의 수, 숫자의 수).")
        )
    if variables != 2:
        raise NotYet(
            say(
                f"{variables} variable(s)? Look at layer.trainable_variables.",
                f"변수가 {variables}개요? layer.trainable_variables를 보세요.",
            )
        )
    if numbers in _NUMBER_SLIPS:
        raise NotYet(say(*_NUMBER_SLIPS[numbers]))
    if numbers != 15:
        raise NotYet(
            say(
                f"{numbers} numbers? Add up the sizes of all the layer's trainable variables.",
                f"숫자가 {numbers}개요? 층의 훈련 가능한 변수의 크기를 모두 더하세요.",
            )
        )
    return say(
        "Two variables, kernel (4, 3) and bias (3,): 12 + 3 = 15 numbers.",
        "변수 두 개, 커널 (4, 3)과 편향 (3,)입니다: 숫자 12 + 3 = 15개.",
    )


def _names_used(code: types.CodeType) -> set[str]:
    """Every global and attribute name a function's code (and the functions defined inside it) refers to."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _names_used(constant)
    return names


def _tiny_model() -> object:
    mt.keras.utils.set_random_seed(1)
    model = mt.keras.Sequential([mt.keras.layers.Dense(1)])
    model(np.zeros((1, 2), dtype="float32"))
    return model


def _reference_step(model: object, x: np.ndarray, y: np.ndarray, learning_rate: float, reduce=mt.reduce_mean) -> float:
    """One step of gradient descent on the mean (or, for the slips, `reduce`) of the squared errors."""
    with mt.GradientTape() as tape:
        loss = reduce(mt.square(model(x) - y))
    for variable, gradient in zip(model.trainable_variables, tape.gradient(loss, model.trainable_variables)):
        variable.assign_sub(learning_rate * gradient)
    return float(loss)


@exercise(
    "8.2",
    "loss inside `with mt.GradientTape() as tape:`; then for each (variable, gradient): assign_sub.",
    ko="`with mt.GradientTape() as tape:` 안에서 손실을 계산하고, (변수, 그래디언트)마다 assign_sub을 하세요.",
)
def sgd(fn: object, evidence: object) -> str:
    expect_function(fn, "sgd_step")
    code = getattr(fn, "__code__", None)
    used = sorted(_names_used(code) & OPTIMIZER_NAMES) if code is not None else []
    if used:
        raise NotYet(
            say(
                f"sgd_step uses {', '.join(used)}: the exercise asks for the update by hand, without an optimizer. "
                "Write variable.assign_sub(learning_rate * gradient) for each variable.",
                f"sgd_step이 {', '.join(used)}을(를) 씁니다. 이 연습 문제는 옵티마이저 없이 직접 갱신하기를 묻습니다. "
                "변수마다 variable.assign_sub(learning_rate * gradient)를 쓰세요.",
            )
        )
    x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], dtype="float32")
    y = np.array([[1.0], [0.0], [2.0]], dtype="float32")
    yours = _tiny_model()
    losses = []
    for _ in range(3):
        try:
            loss = call(fn, (yours, x, y, 0.05), "sgd_step(model, x, y, 0.05)")
        except NotYet as error:
            if "NoneType" in str(error):  # learning_rate * None: tape.gradient found no path to the variables
                raise NotYet(
                    say(
                        f"a gradient is None (so {error}): the tape recorded no path from the loss to the variables. "
                        "Is the loss computed inside `with mt.GradientTape() as tape:`?",
                        f"그래디언트가 None입니다(그래서 {error}). 테이프가 손실에서 변수까지 경로를 기록하지 "
                        "않았습니다. 손실을 `with mt.GradientTape() as tape:` 안에서 계산했나요?",
                    )
                ) from None
            raise
        if loss is None:
            raise NotYet(
                say("sgd_step returned None: return the loss.", "sgd_step이 None을 돌려주었습니다. 손실을 돌려주세요.")
            )
        losses.append(as_number(loss, say("the loss your sgd_step returned", "sgd_step이 돌려준 손실")))
    weights = yours.get_weights()
    if all(np.array_equal(a, b) for a, b in zip(weights, _tiny_model().get_weights())):
        raise NotYet(
            say(
                "after 3 steps the weights have not changed: update each variable with assign_sub.",
                "3스텝 뒤에도 가중치가 그대로입니다. 변수마다 assign_sub으로 갱신하세요.",
            )
        )

    def same_as(learning_rate: float, reduce=mt.reduce_mean) -> bool:
        reference = _tiny_model()
        for _ in range(3):
            _reference_step(reference, x, y, learning_rate, reduce)
        return all(np.allclose(a, b, atol=1e-5) for a, b in zip(weights, reference.get_weights()))

    slips = [
        (
            (-0.05, mt.reduce_mean),
            "after 3 steps the weights moved up the gradient, so the loss grows: subtract the step, not add.",
            "3스텝 동안 가중치가 그래디언트를 따라 올라가서 손실이 커집니다. 스텝을 더하지 말고 빼세요.",
        ),
        (
            (0.05, mt.reduce_sum),
            "your steps follow the sum of the squared errors; this exercise's loss is their mean (mt.reduce_mean).",
            "여러분의 스텝은 제곱 오차의 합을 따릅니다. 이 연습 문제의 손실은 그 평균(mt.reduce_mean)입니다.",
        ),
        (
            (0.1, mt.reduce_mean),
            "your steps are twice as long as learning_rate * gradient: is the learning rate counted twice?",
            "여러분의 스텝이 learning_rate * gradient의 두 배입니다. 학습률을 두 번 곱했나요?",
        ),
    ]
    for (rate, reduce), en, ko in slips:
        if same_as(rate, reduce):
            raise NotYet(say(en, ko))
    if not same_as(0.05):
        raise NotYet(
            say(
                "after 3 steps the weights differ from plain gradient descent on the mean squared error.",
                "3스텝 뒤의 가중치가 평균 제곱 오차에 대한 평범한 경사 하강법의 결과와 다릅니다.",
            )
        )
    if not losses[2] < losses[0]:
        raise NotYet(say("the loss did not go down over 3 steps.", "3스텝 동안 손실이 줄지 않았습니다."))
    return say(
        f"3 steps of gradient descent: the loss went from {losses[0]:.3f} to {losses[2]:.3f}.",
        f"경사 하강법 3스텝: 손실이 {losses[0]:.3f}에서 {losses[2]:.3f}로 줄었습니다.",
    )
