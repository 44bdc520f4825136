"""A small GPT trained here on a generated bilingual corpus of true facts about countries.

corpus: the facts, the templates and the tokenizer; vocab: words to ids; model: nanoGPT's shape over
ffn.FFN; train: the training script (python -m ffn_core.gpt.train); weights: the shipped checkpoints;
evaluate: fact accuracy, template-word accuracy and the FFN's active fraction; writers: each block's
mean direct term on the answer over many prompts (the training log keeps it by step); progress: the
curve across training and one checkpoint probed; context: one word's vector block by block.
Importing this package runs nothing.
"""
