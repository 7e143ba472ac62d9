"""``packed_linear``: oneDNN-packed weights give ``functional.linear``'s results."""

from __future__ import annotations

import torch
from torch.nn import functional

from sglang.srt.layers.packed_linear import MIN_PACKED_ELEMENTS, linear, pack_weight
from sglang.srt.layers.quantization import UnquantizedLinearMethod
from sglang.srt.layers.vocab_parallel_embedding import ParallelLMHead


def test_packed_results_equal_the_plain_ones_up_to_rounding() -> None:
    gen = torch.Generator().manual_seed(0)
    weight = torch.randn(768, 256, generator=gen) * 0.05
    bias = torch.randn(768, generator=gen)
    packed = pack_weight(weight)
    assert packed is not None
    for shape in ((1, 256), (16, 256), (130, 256), (2, 7, 256)):
        x = torch.randn(*shape, generator=gen)
        for b in (None, bias):
            got = linear(x, weight, packed, b)
            torch.testing.assert_close(got, functional.linear(x, weight, b), rtol=1e-5, atol=1e-5)
    strided = torch.randn(256, 16, generator=gen).t()
    torch.testing.assert_close(
        linear(strided, weight, packed), strided @ weight.t(), rtol=1e-5, atol=1e-5
    )


def test_small_or_reduced_precision_weights_stay_plain() -> None:
    small = torch.randn(MIN_PACKED_ELEMENTS // 64 - 1, 64)
    assert pack_weight(small) is None
    assert pack_weight(torch.randn(512, 256, dtype=torch.bfloat16)) is None
    assert pack_weight(torch.randn(512, 256)) is not None
    x = torch.randn(3, 64, dtype=torch.bfloat16)
    weight = torch.randn(1024, 64)
    packed = pack_weight(weight)
    assert packed is not None  # a bfloat16 activation still takes the plain weight
    assert linear(x, weight.to(torch.bfloat16), packed).dtype == torch.bfloat16


def test_compiled_code_uses_the_plain_weight() -> None:
    weight = torch.randn(512, 256)
    packed = pack_weight(weight)
    x = torch.randn(4, 256)
    # inductor cannot lower the packed call; the plain weight must be what it sees
    compiled = torch.compile(
        lambda t: linear(t, weight, packed), backend="inductor", fullgraph=True
    )
    torch.testing.assert_close(compiled(x), functional.linear(x, weight), rtol=1e-5, atol=1e-5)


def test_the_linear_method_and_the_lm_head_pack_after_loading() -> None:
    layer = torch.nn.Linear(256, 512, bias=False)
    assert UnquantizedLinearMethod().packed_weight is None
    method = UnquantizedLinearMethod()
    method.process_weights_after_loading(layer)
    assert method.packed_weight is not None
    x = torch.randn(5, 256)
    torch.testing.assert_close(method.apply(layer, x, None), layer(x), rtol=1e-5, atol=1e-5)
    head = ParallelLMHead(1000, 128)
    torch.nn.init.normal_(head.weight)
    plain = head.compute_logits(torch.ones(2, 128))
    head.process_weights_after_loading()
    assert head.packed_weight is not None
    torch.testing.assert_close(head.compute_logits(torch.ones(2, 128)), plain)
