"""Port of TensorFlow's guide "Introduction to tensor slicing" (guide/tensor_slicing).

The guide's cells run unchanged but for `import minitape as tf`, in order, and the tests check what they
print against the values the guide states. Cell numbers count the notebook's code cells from 1 (the licence
cell). Two kinds of cell cannot run here, and their tests check that minitape says so and what to use:
a tensor of letters (cell 9: tensors hold numbers) and `tf.SparseTensor` (cells 17-18: tensors are dense).
"""

import re

import numpy as np
import pytest

import minitape as tf


def _printed(out: str) -> list[tuple[str, str]]:
    """(value, dtype) of every tensor printed as `mt.Tensor(value, shape=..., dtype=...)`."""
    return [(v.strip(), d) for v, d in re.findall(r"Tensor\((.*?), shape=\([\d, ]*\), dtype=(\w+)\)", out, re.S)]


def _as(values: list, dtype: str) -> tuple[str, str]:
    """How TensorFlow prints a tensor of `values`: numpy's layout of the array, and the dtype."""
    return str(np.array(values, dtype)), dtype


t1 = tf.constant([0, 1, 2, 3, 4, 5, 6, 7])
t2 = tf.constant([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13, 14], [15, 16, 17, 18, 19]])
t5 = np.reshape(np.arange(18), [2, 3, 3])
t11 = tf.constant([[2, 7, 0], [9, 0, 1], [0, 3, 8]])
t14 = tf.constant([[-2, -7, 0], [-9, 0, 1], [0, -3, -8]])


def test_cells_03_to_07_slice_and_python_slicing(capsys):
    print(tf.slice(t1, begin=[1], size=[3]))
    print(t1[1:4])
    print(t1[-3:])
    print(t2[:-1, 1:3])
    t3 = tf.constant([[[1, 3, 5, 7], [9, 11, 13, 15]], [[17, 19, 21, 23], [25, 27, 29, 31]]])
    print(tf.slice(t3, begin=[1, 1, 0], size=[1, 1, 2]))
    assert _printed(capsys.readouterr().out) == [
        _as([1, 2, 3], "int32"),
        _as([1, 2, 3], "int32"),
        _as([5, 6, 7], "int32"),
        _as([[1, 2], [6, 7], [11, 12]], "int32"),
        _as([[[25, 27]]], "int32"),
    ]


def test_cell_08_gather_is_a_strided_slice_here(capsys):
    print(tf.gather(t1, indices=[0, 3, 6]))
    assert _printed(capsys.readouterr().out) == [_as([0, 3, 6], "int32")]
    assert t1[::3].numpy().tolist() == [0, 3, 6]


def test_cell_09_a_tensor_of_letters_is_refused_with_what_to_do():
    with pytest.raises(TypeError, match="not text: process strings in Python"):
        tf.constant(list("abcdefghijklmnopqrstuvwxyz"))


def test_cells_10_to_13_gather_nd(capsys):
    t4 = tf.constant([[0, 5], [1, 6], [2, 7], [3, 8], [4, 9]])
    print(tf.gather_nd(t4, indices=[[2], [3], [0]]))
    print(tf.gather_nd(t5, indices=[[0, 0, 0], [1, 2, 1]]))
    print(tf.gather_nd(t5, indices=[[[0, 0], [0, 2]], [[1, 0], [1, 2]]]))
    print(tf.gather_nd(t5, indices=[[0, 0], [0, 2], [1, 0], [1, 2]]))
    rows = [[0, 1, 2], [6, 7, 8], [9, 10, 11], [15, 16, 17]]
    assert _printed(capsys.readouterr().out) == [
        _as([[2, 7], [3, 8], [0, 5]], "int32"),
        _as([0, 16], "int64"),
        _as([rows[:2], rows[2:]], "int64"),
        _as(rows, "int64"),
    ]


def test_cells_14_to_16_scatter_nd(capsys):
    t6 = tf.constant([10])
    indices = tf.constant([[1], [3], [5], [7], [9]])
    data = tf.constant([2, 4, 6, 8, 10])
    print(tf.scatter_nd(indices=indices, updates=data, shape=t6))
    new_indices = tf.constant([[0, 2], [2, 1], [3, 3]])
    t7 = tf.gather_nd(t2, indices=new_indices)
    t8 = tf.scatter_nd(indices=new_indices, updates=t7, shape=tf.constant([4, 5]))
    print(t8)
    sparse_as_dense = [[0, 0, 2, 0, 0], [0, 0, 0, 0, 0], [0, 11, 0, 0, 0], [0, 0, 0, 18, 0]]
    assert _printed(capsys.readouterr().out) == [
        _as([0, 2, 0, 4, 0, 6, 0, 8, 0, 10], "int32"),
        _as(sparse_as_dense, "int32"),
    ]


def test_cells_17_18_sparse_tensors_are_refused_with_what_to_do():
    with pytest.raises(AttributeError, match="no tf.SparseTensor: tensors are dense numpy arrays"):
        tf.SparseTensor(indices=[[0, 2], [2, 1], [3, 3]], values=[2, 11, 18], dense_shape=[4, 5])
    with pytest.raises(AttributeError, match="no tf.sparse"):
        tf.sparse.to_dense(None)


def test_cells_19_to_22_tensor_scatter_nd(capsys):
    t12 = tf.tensor_scatter_nd_add(t11, indices=[[0, 2], [1, 1], [2, 0]], updates=[6, 5, 4])
    print(t12)
    t13 = tf.tensor_scatter_nd_sub(
        t11, indices=[[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 1], [2, 2]], updates=[1, 7, 9, -1, 1, 3, 7]
    )
    print(t13)
    t15 = tf.tensor_scatter_nd_min(t14, indices=[[0, 2], [1, 1], [2, 0]], updates=[-6, -5, -4])
    print(t15)
    t16 = tf.tensor_scatter_nd_max(t14, indices=[[0, 2], [1, 1], [2, 0]], updates=[6, 5, 4])
    print(t16)
    magic = [[2, 7, 6], [9, 5, 1], [4, 3, 8]]
    assert _printed(capsys.readouterr().out) == [
        _as(magic, "int32"),
        _as([[1, 0, 0], [0, 1, 0], [0, 0, 1]], "int32"),
        _as([[-2, -7, -6], [-9, -5, 1], [-4, -3, -8]], "int32"),
        _as([[-2, -7, 6], [-9, 5, 1], [4, -3, -8]], "int32"),
    ]
    assert {sum(row) for row in magic} | {sum(col) for col in zip(*magic)} == {15}  # the guide's magic square
