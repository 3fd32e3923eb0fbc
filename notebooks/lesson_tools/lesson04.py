"""Checkers for lesson 04."""
