"""Mixture-of-experts routing functions of MindSpore 2.x."""
