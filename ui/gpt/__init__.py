"""The two GPT pages' experiments and page 8's extra sections.

- probes.py: the shipped GPT loaded once per process, and the cached probes pages 8 and 9 call
- checkpoints.py: the training checkpoints, loaded once per process, and the cached probes on them (how the memory forms)
- sections.py: page 8's sections on the checkpoints and on one word in context, drawn from checkpoints.py's results
- moe_probes.py: the shipped MoE GPT loaded once per process, its baseline pass, and the mixture-of-experts page's cached probes
"""
