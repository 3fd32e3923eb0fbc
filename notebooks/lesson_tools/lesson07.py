"""Checkers for lesson 07."""
