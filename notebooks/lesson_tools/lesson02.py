"""Checkers for lesson 02."""
