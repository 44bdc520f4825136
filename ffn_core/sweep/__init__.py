"""The width sweep: m neurons buy at most m kinks, m + 1 pieces; what that buys in error.

Modules, from the bottom up: ``expr`` (safe custom targets) and ``targets`` (the functions fitted),
``net1d`` (a batch of 1-D networks), ``naive`` and ``varpro`` (the two trainings), ``sweep`` (the sweep
over widths), ``best`` (the best network found for each width), ``lesson`` (the seed's table and the
report entry). Importing the package runs nothing.
"""
