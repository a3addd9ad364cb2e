"""Core objects: Tensor and dtypes."""
