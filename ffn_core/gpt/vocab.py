"""Words to ids and back: one id per corpus word, <pad> first, the rest in sorted order."""
from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

from ffn_core.gpt import corpus

PAD = "<pad>"


@dataclass(frozen=True)
class Vocab:
    """The model's vocabulary; id 0 is padding, which no sentence predicts."""

    tokens: tuple[str, ...]
    index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", {w: i for i, w in enumerate(self.tokens)})

    def __len__(self) -> int:
        return len(self.tokens)

    def encode(self, words: Sequence[str]) -> list[int]:
        """Ids of the words; raises KeyError on a word outside the vocabulary."""
        return [self.index[w] for w in words]

    def decode(self, ids: Sequence[int]) -> list[str]:
        return [self.tokens[int(i)] for i in ids]

    def unknown(self, words: Sequence[str]) -> list[str]:
        """The words that are not in the vocabulary, in order."""
        return [w for w in words if w not in self.index]


@functools.cache
def vocab() -> Vocab:
    """The corpus vocabulary, the same on every run."""
    return Vocab((PAD, *corpus.words()))
