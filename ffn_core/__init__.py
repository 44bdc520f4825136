"""FFN Lab's functional core: the feed-forward network and one small module per demo.

Pure torch on the CPU. Importing this package runs nothing and loads neither
streamlit nor altair; import the demo modules themselves (``from ffn_core import collapse``).
"""
