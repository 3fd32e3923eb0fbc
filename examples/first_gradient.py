"""The first example of the README: a gradient with a tape, checked by hand."""

import minitape as mt

w1, w2 = mt.Variable(5.0, name="w1"), mt.Variable(3.0, name="w2")
with mt.GradientTape() as tape:
    f = 3 * w1**2 + 2 * w1 * w2  # f(w1, w2) = 3 w1^2 + 2 w1 w2
dw1, dw2 = tape.gradient(f, [w1, w2])
print("f =", float(f))
print("df/dw1 =", float(dw1), "(6 w1 + 2 w2 = 36)")
print("df/dw2 =", float(dw2), "(2 w1 = 10)")
