"""A small GPT trained here on a generated bilingual corpus of true facts about countries.

corpus: the facts, the templates and the tokenizer; vocab: words to ids; model: nanoGPT's shape over
ffn.FFN; train: the training script (python -m ffn_core.gpt.train); weights: the shipped checkpoints;
evaluate: fact accuracy, template-word accuracy and the FFN's active fraction.
Importing this package runs nothing.
"""
