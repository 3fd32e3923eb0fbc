"""aids"""
