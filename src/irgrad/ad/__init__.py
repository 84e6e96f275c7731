"""Reverse- and forward-mode automatic differentiation of irgrad IR (Enzyme's algorithm)."""
