"""Altair chart builders, one module per demo; each function takes a DataFrame and the translator.

home.py, split.py (page 1), position.py (2), collapse.py (3), sweep.py (4), keyvalue.py (5), sparsity.py (6),
activations.py (pages 5 and 7: which neurons fire), gpt.py (pages 8 and 9), gpt_checkpoints.py (page 8's
checkpoint and word-in-context sections), gated.py (the gated FFN), moe.py (the mixture of experts);
text.py says any of them as text (a caption with its values, its data as tables) for a student who cannot see it;
palette.py holds every colour they draw with (3:1 on the page, apart under colour-vision deficiencies);
encode.py the encodings many of them share (a colour legend, a 0-100 % axis).

How they are written, for speed (a chart is rebuilt for every new setting a student picks):
- Channels are classes with field and type, e.g. alt.Y(field="share", type="quantitative"), never
  shorthand strings, dicts or alt.value(…). encode() sends those through from_dict, a schema round
  trip of ~5 ms a channel, and a shorthand inside a class ("share:Q") is parsed again in to_dict.
- A frame shared by every mark goes on the layer (alt.layer(…, data=…)), not on each mark: Altair
  would hash it through its text repr and deep-copy every layer to hoist it there.
- One alt.layer(…) rather than chained "+": each "+" copies every layer built so far.
"""
