"""namespaces"""
