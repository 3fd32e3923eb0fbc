"""A dtype prints as TensorFlow prints it, and its repr is the name to type."""

import minitape as mt


def test_a_dtype_prints_as_tensorflow_and_reprs_as_its_name(capsys):
    print(mt.float32, mt.zeros([2], mt.int64).dtype, [mt.uint8])
    # TensorFlow 2.21 prints: <dtype: 'float32'> <dtype: 'int64'> [tf.uint8]
    assert capsys.readouterr().out == "<dtype: 'float32'> <dtype: 'int64'> [mt.uint8]\n"
    assert f"{mt.bool}" == "<dtype: 'bool'>" and repr(mt.float16) == "mt.float16"
