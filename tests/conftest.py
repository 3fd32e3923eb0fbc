"""Fixtures shared by several test files."""

import pytest
from threadpoolctl import threadpool_limits

import minitape as mt


@pytest.fixture
def keras_session():
    """Layer names restart at 'dense', 'conv2d', ...; a fixed seed; one BLAS thread (the CPUs are shared)."""
    mt.keras.backend.clear_session()
    mt.random.set_seed(0)
    with threadpool_limits(limits=1):
        yield
