"""Checkers for lesson 07: stop_gradient and custom_gradient."""

from __future__ import annotations

import numpy as np

import minitape as mt
from lesson_tools.checking import NotYet, as_number, describe, exercise, expect_function, not_written, show
from lesson_tools.language import say


def _raised(name: str, error: Exception) -> NotYet:
    if isinstance(error, TypeError) and "unpack" in str(error):  # custom_gradient unpacks (value, grad)
        nothing = "NoneType" in str(error)
        return NotYet(
            say(
                f"{name} must return two things, the value and the grad function: `return mt.identity(x), grad` "
                f"(it returned {'nothing' if nothing else 'something else'}).",
                f"{name}은(는) 값과 grad 함수, 두 가지를 돌려주어야 합니다: `return mt.identity(x), grad` "
                f"({'아무것도 돌려주지 않았습니다' if nothing else '다른 것을 돌려주었습니다'}).",
            )
        )
    first = str(error).splitlines()[0] if str(error) else ""
    return NotYet(
        say(
            f"calling {name}(x) raised {type(error).__name__}: {first}",
            f"{name}(x)를 호출하자 {type(error).__name__} 오류가 났습니다: {first}",
        )
    )


def _expect_tensor(out: object, name: str) -> None:
    if out is None:
        raise NotYet(
            say(
                f"{name}(x) returned None: end it with `return` and a tensor.",
                f"{name}(x)가 None을 돌려주었습니다. 마지막에 `return`으로 텐서를 돌려주세요.",
            )
        )
    if isinstance(out, tuple) and len(out) == 2 and callable(out[1]):
        raise NotYet(
            say(
                f"{name}(x) returned the pair (value, grad function) itself: without @mt.custom_gradient on the line "
                f"above `def {name}`, nothing uses your grad. Add the decorator.",
                f"{name}(x)가 쌍 (값, grad 함수) 자체를 돌려주었습니다. `def {name}` 윗줄에 @mt.custom_gradient가 "
                "없으면 아무도 여러분의 grad를 쓰지 않습니다. 데코레이터를 붙이세요.",
            )
        )
    if not hasattr(out, "numpy"):
        raise NotYet(
            say(
                f"{name}(x) returned {describe(out)}: return a tensor computed from x with mt ops.",
                f"{name}(x)가 {describe(out)}을(를) 돌려주었습니다. x로부터 mt 연산으로 계산한 텐서를 돌려주세요.",
            )
        )


def _value_and_gradient(fn: object, name: str, x: float, scale: float = 1.0) -> tuple[float, object]:
    """Run the student's function on a watched constant x: the value of scale * fn(x), and its gradient."""
    expect_function(fn, name)
    source = mt.constant(x)
    with mt.GradientTape() as tape:
        tape.watch(source)
        try:
            out = fn(source)
        except Exception as error:
            raise _raised(name, error) from None
        _expect_tensor(out, name)
        y = scale * out
    try:
        gradient = tape.gradient(y, source)
    except Exception as error:
        first = str(error).splitlines()[0] if str(error) else ""
        raise NotYet(
            say(
                f"the gradient through {name} raised {type(error).__name__}: {first}",
                f"{name}을(를) 거치는 그래디언트에서 {type(error).__name__} 오류가 났습니다: {first}",
            )
        ) from None
    return float(y), gradient


@exercise(
    "7.1",
    "x * mt.stop_gradient(...): the factors inside stop_gradient count as constants.",
    ko="x * mt.stop_gradient(...): stop_gradient 안의 인수는 상수로 셉니다.",
)
def partial_stop(fn: object, evidence: object) -> str:
    value, grad = _value_and_gradient(fn, "f", 2.0)
    if abs(value - 8.0) > 1e-5:
        raise NotYet(
            say(
                f"f(2) is {value:g}, but the value should still be x³ = 8.",
                f"f(2)가 {value:g}인데, 값은 여전히 x³ = 8이어야 합니다.",
            )
        )
    if grad is None:
        raise NotYet(
            say(
                "the gradient of f is None: all three factors are inside stop_gradient; leave one x outside.",
                "f의 그래디언트가 None입니다. 세 인수가 모두 stop_gradient 안에 있습니다. x 하나는 밖에 두세요.",
            )
        )
    g = as_number(grad, say("the gradient of f at 2", "2에서 f의 그래디언트"))
    if abs(g - 12.0) < 1e-5:
        raise NotYet(
            say(
                "the gradient at x = 2 is 12 = 3x²: nothing was stopped. Put two factors inside mt.stop_gradient.",
                "x = 2에서 그래디언트가 12 = 3x²입니다. 아무것도 멈추지 않았습니다. 인수 둘을 mt.stop_gradient 안에 넣으세요.",
            )
        )
    if abs(g - 8.0) < 1e-5:
        raise NotYet(
            say(
                "the gradient at x = 2 is 8 = 2x²: one factor is stopped, two are not. Stop two of the three.",
                "x = 2에서 그래디언트가 8 = 2x²입니다. 인수 하나만 멈추고 둘은 멈추지 않았습니다. 셋 중 둘을 멈추세요.",
            )
        )
    if abs(g - 4.0) > 1e-5:
        raise NotYet(
            say(
                f"the gradient at x = 2 is {g:g}; with two factors stopped it should be x² = 4.",
                f"x = 2에서 그래디언트가 {g:g}입니다. 인수 둘을 멈추면 x² = 4여야 합니다.",
            )
        )
    return say(
        "Value x³, gradient x²: the tape only sees the factor that was not stopped.",
        "값은 x³, 그래디언트는 x²입니다. 테이프는 멈추지 않은 인수만 봅니다.",
    )


# (x, upstream): x and the upstream gradient each inside and outside [-1, 1], and negative
_CLIP_CASES = [(3.0, 5.0), (0.5, 0.25), (-2.0, -4.0), (-0.5, 3.0), (2.0, -0.5)]


def _clip_slip(got: list[float]) -> str:
    """The sentence naming a typical slip of a clipping gradient ("" when none fits)."""
    xs, upstreams = (np.array(column) for column in zip(*_CLIP_CASES))
    if np.allclose(got, upstreams, atol=1e-6):
        return say(
            "the gradient is the upstream gradient unchanged: it was not clipped to [-1, 1].",
            "그래디언트가 상류 그래디언트 그대로입니다. [-1, 1]로 잘리지 않았습니다.",
        )
    if np.allclose(got, np.clip(xs, -1.0, 1.0), atol=1e-6):
        return say(
            "your grad clips x, the function's input; what comes back should be the upstream gradient, clipped.",
            "여러분의 grad는 함수의 입력 x를 자릅니다. 돌려줄 것은 잘린 상류 그래디언트입니다.",
        )
    if np.allclose(got, np.clip(upstreams, 0.0, 1.0), atol=1e-6):
        return say(
            "negative upstream gradients come back as 0: clip to [-1, 1], not [0, 1].",
            "음수인 상류 그래디언트가 0으로 돌아옵니다. [0, 1]이 아니라 [-1, 1]로 자르세요.",
        )
    if np.allclose(got, got[0], atol=1e-6):
        return say(
            f"the gradient is {got[0]:g} whatever the upstream gradient is (tried {show(upstreams)}): grad should "
            "return what it receives, clipped.",
            f"상류 그래디언트가 무엇이든({show(upstreams)}로 해 봄) 그래디언트가 {got[0]:g}입니다. grad는 받은 것을 "
            "잘라서 돌려주어야 합니다.",
        )
    return ""


@exercise(
    "7.2",
    "inside, define grad(upstream) returning mt.clip_by_value(upstream, -1.0, 1.0); return (x, grad).",
    ko="안에서 mt.clip_by_value(upstream, -1.0, 1.0)을 돌려주는 grad(upstream)를 정의하고, (x, grad)를 돌려주세요.",
)
def clip(fn: object, evidence: object) -> str:
    got = []
    for x, upstream in _CLIP_CASES:
        shown = f"{upstream:g} * clip_gradient(x), x = {x:g}"
        value, grad = _value_and_gradient(fn, "clip_gradient", x, scale=upstream)
        if abs(value - upstream * x) > 1e-5:
            raise NotYet(
                say(
                    f"{shown}: the value is {value:g}; it should pass unchanged ({upstream * x:g}).",
                    f"{shown}: 값이 {value:g}입니다. 값은 그대로 지나가야 합니다({upstream * x:g}).",
                )
            )
        if grad is None:
            raise NotYet(
                say(
                    "the gradient through clip_gradient is None: your grad function must return the clipped upstream.",
                    "clip_gradient를 거치는 그래디언트가 None입니다. grad 함수는 잘린 상류 그래디언트를 돌려주어야 합니다.",
                )
            )
        got.append(as_number(grad, say(f"the gradient of {shown}", f"{shown}의 그래디언트")))
    upstreams = np.array([u for _, u in _CLIP_CASES])
    if np.allclose(got, np.clip(upstreams, -1.0, 1.0), atol=1e-6):
        return say(
            "Every upstream gradient came back clipped to [-1, 1], and the values passed unchanged.",
            "모든 상류 그래디언트가 [-1, 1]로 잘려 돌아왔고, 값은 그대로 지나갔습니다.",
        )
    slip = _clip_slip(got)
    if slip:
        raise NotYet(slip)
    wrong = next(i for i, g in enumerate(got) if abs(g - np.clip(upstreams[i], -1.0, 1.0)) > 1e-6)
    x, upstream = _CLIP_CASES[wrong]
    raise NotYet(
        say(
            f"the gradient of {upstream:g} * clip_gradient(x) at x = {x:g} is {got[wrong]:g}, not the upstream "
            f"{upstream:g} clipped to [-1, 1].",
            f"x = {x:g}에서 {upstream:g} * clip_gradient(x)의 그래디언트가 {got[wrong]:g}입니다. 상류 {upstream:g}를 "
            "[-1, 1]로 자른 값이 아닙니다.",
        )
    )


@exercise(
    "7.3",
    "the message names the op that produced the NaN and the forward op whose gradient it was computing.",
    ko="메시지에는 NaN을 만든 연산과, 그 연산이 그래디언트를 계산하던 순전파 연산의 이름이 있습니다.",
)
def sqrt_nan(answer: object, evidence: object) -> str:
    if answer is Ellipsis:
        raise not_written("answer")
    if not isinstance(answer, str):
        raise NotYet(
            say(
                f'answer should be an op\'s name as a string, like "Mul", not {describe(answer)}.',
                f'answer는 "Mul"처럼 연산 이름을 담은 문자열이어야 하는데 {describe(answer)}입니다.',
            )
        )
    name = answer.strip()
    if name.lower() in {"realdiv", "div", "mul"}:
        raise NotYet(
            say(
                f"{name} is the op that computed the NaN; which forward op's gradient was it computing?",
                f"{name}은(는) NaN을 계산한 연산입니다. 그것은 어느 순전파 연산의 그래디언트를 계산하고 있었나요?",
            )
        )
    if name.lower() != "sqrt":
        raise NotYet(
            say(
                f"{name!r} is not the op named after 'in the backward pass of'.",
                f"{name!r}은(는) 메시지의 'in the backward pass of' 뒤에 나오는 연산이 아닙니다.",
            )
        )
    return say(
        "Sqrt: its derivative 1/(2√z) is infinite at 0, and 0 · ∞ (here 0/0) is NaN.",
        "Sqrt입니다. 그 도함수 1/(2√z)는 0에서 무한대이고, 0 · ∞(여기서는 0/0)는 NaN입니다.",
    )
