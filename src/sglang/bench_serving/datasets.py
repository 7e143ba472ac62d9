"""The benchmark's prompts: :class:`DatasetRow`, :class:`Vocabulary` and the two datasets.

Prompts are lists of token ids drawn from the tokenizer's ordinary
vocabulary (its added and special tokens left out) with a seeded
:class:`random.Random`, and are sent as ids, so every prompt has exactly the
length the dataset asks for and the same seed gives the same prompts.

* ``random`` (:func:`sample_random_requests`): independent prompts; input
  and output lengths drawn uniformly from ``[len * range_ratio, len]``.
* ``generated-shared-prefix`` (:func:`sample_generated_shared_prefix_requests`):
  ``num_groups`` system prompts of ``system_prompt_len`` tokens, each
  followed by ``prompts_per_group`` questions of ``question_len`` tokens;
  the requests are shuffled so that the groups interleave.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DatasetRow",
    "Vocabulary",
    "sample_generated_shared_prefix_requests",
    "sample_random_requests",
]


@dataclass(frozen=True)
class DatasetRow:
    """One request of a dataset.

    Attributes:
        prompt: The prompt's token ids.
        prompt_len: ``len(prompt)``.
        output_len: The tokens to generate (``max_new_tokens`` / ``max_tokens``).
    """

    prompt: list[int]
    prompt_len: int
    output_len: int


@dataclass(frozen=True)
class Vocabulary:
    """The token ids prompts are drawn from.

    Attributes:
        ids: The ordinary (not added, not special) token ids, ascending.
        source: Where the vocabulary was read from, for messages.
    """

    ids: tuple[int, ...]
    source: str

    @classmethod
    def from_tokenizer(cls, path: str | Path) -> Vocabulary:
        """Read the vocabulary of a model directory or a ``tokenizer.json`` file.

        Raises:
            FileNotFoundError: No ``tokenizer.json`` there.
            ValueError: The file holds no ``model.vocab``.
        """
        file = Path(path)
        if file.is_dir():
            file = file / "tokenizer.json"
        if not file.is_file():
            raise FileNotFoundError(
                f"{file} not found: pass --tokenizer a model directory holding tokenizer.json "
                f"(or the file itself)"
            )
        data = json.loads(file.read_text(encoding="utf-8"))
        vocab = data.get("model", {}).get("vocab")
        if isinstance(vocab, list):  # unigram models list [piece, score] pairs
            ids = set(range(len(vocab)))
        elif isinstance(vocab, dict):
            ids = {int(i) for i in vocab.values()}
        else:
            raise ValueError(f"{file} has no model.vocab to draw prompt tokens from")
        ids -= {int(t["id"]) for t in data.get("added_tokens") or [] if "id" in t}
        if not ids:
            raise ValueError(f"{file} has no ordinary tokens to draw prompt tokens from")
        return cls(tuple(sorted(ids)), str(file))

    def draw(self, rng: random.Random, length: int) -> list[int]:
        """*length* token ids drawn uniformly, with replacement."""
        return rng.choices(self.ids, k=length)


def _lengths(rng: random.Random, length: int, ratio: float, count: int) -> list[int]:
    low = max(1, int(length * ratio))
    return [rng.randint(low, length) for _ in range(count)]


def sample_random_requests(
    vocab: Vocabulary,
    *,
    num_prompts: int,
    input_len: int,
    output_len: int,
    range_ratio: float,
    seed: int,
) -> list[DatasetRow]:
    """*num_prompts* independent random prompts (the ``random`` dataset).

    Input and output lengths are drawn uniformly from ``[len * range_ratio,
    len]`` (at least 1); ``range_ratio=1`` makes every length exact.
    """
    rng = random.Random(seed)
    inputs = _lengths(rng, input_len, range_ratio, num_prompts)
    outputs = _lengths(rng, output_len, range_ratio, num_prompts)
    return [DatasetRow(vocab.draw(rng, n), n, m) for n, m in zip(inputs, outputs, strict=True)]


def sample_generated_shared_prefix_requests(
    vocab: Vocabulary,
    *,
    num_groups: int,
    prompts_per_group: int,
    system_prompt_len: int,
    question_len: int,
    output_len: int,
    seed: int,
) -> list[DatasetRow]:
    """Groups of prompts sharing a system prompt (the ``generated-shared-prefix`` dataset).

    Each of the ``num_groups * prompts_per_group`` prompts is its group's
    system prompt followed by its own question; the list is shuffled.
    """
    rng = random.Random(seed)
    rows: list[DatasetRow] = []
    for _ in range(num_groups):
        system = vocab.draw(rng, system_prompt_len)
        for _ in range(prompts_per_group):
            prompt = system + vocab.draw(rng, question_len)
            rows.append(DatasetRow(prompt, len(prompt), output_len))
    rng.shuffle(rows)
    return rows
