"""Sampling for the reference SRT runtime: parameters, the sampler, finish rules.

* :mod:`~sglang.srt.sampling.sampling_params`: :class:`SamplingParams`, checked
  field by field;
* :mod:`~sglang.srt.sampling.sampler`: next tokens (greedy, temperature,
  top-k, top-p, min-p, per-request seeds) and their log-probabilities;
* :mod:`~sglang.srt.sampling.finish`: incremental detokenisation and the
  rules that end a request (length, EOS, stop tokens, stop strings).

Importing this package imports no torch; the sampler imports it when used.
"""

from sglang.srt.sampling.finish import FinishReason, FinishType, OutputTracker
from sglang.srt.sampling.sampling_params import SamplingParams

__all__ = ["FinishReason", "FinishType", "OutputTracker", "SamplingParams"]
