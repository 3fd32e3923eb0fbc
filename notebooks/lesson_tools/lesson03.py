"""Checkers for lesson 03."""
