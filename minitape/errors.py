"""Exceptions with TensorFlow's names, so `except mt.errors.InvalidArgumentError` ports unchanged."""


class InvalidArgumentError(ValueError):
    """An op was given inputs it cannot work with: shapes that do not fit, a wrong dtype, a bad value."""
