"""Checkers for lesson 06."""
