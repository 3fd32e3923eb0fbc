"""Checkers for lesson 05."""
