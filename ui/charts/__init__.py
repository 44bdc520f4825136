"""Altair chart builders, one module per demo; each function takes a DataFrame and the translator."""
