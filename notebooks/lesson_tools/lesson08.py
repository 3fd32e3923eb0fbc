"""Checkers for lesson 08."""
