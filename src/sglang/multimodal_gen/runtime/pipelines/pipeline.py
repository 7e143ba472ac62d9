"""``TextToImagePipeline``: text encoder -> flow-matching Euler over the DiT -> VAE decoder.

Built in the worker after the device is bound. The platform is asked at the
points its methods name: ``verify_model_arch()`` before building,
attention through ``get_attn_backend_cls_str()``, ``optimize_vae()`` on the
decoder, ``build_torch_compile_kwargs()`` only with
``--enable-torch-compile``, and per request ``inference_mode()`` and
``seed_everything()``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import torch

from sglang.multimodal_gen.configs.sampling_params import SamplingParams
from sglang.multimodal_gen.runtime.layers.attention import AttentionSelection, select_attn_backend
from sglang.multimodal_gen.runtime.models.dit import DiffusionTransformer
from sglang.multimodal_gen.runtime.models.text_encoder import TextEncoder, tokenize
from sglang.multimodal_gen.runtime.models.vae import VAEDecoder
from sglang.multimodal_gen.runtime.pipelines.compile import build_torch_compile_kwargs
from sglang.multimodal_gen.runtime.pipelines.loader import load_weights, read_layout
from sglang.multimodal_gen.runtime.pipelines.scheduler import FlowMatchEulerScheduler

if TYPE_CHECKING:
    from sglang.multimodal_gen.runtime.server_args import ServerArgs

__all__ = ["Image", "TextToImagePipeline"]

Image = tuple[int, int, bytes]
"""One generated image: ``(width, height, RGB bytes row by row)``."""


def _offload_layerwise(dit: DiffusionTransformer, device: torch.device) -> None:
    """Keep each block in host memory, moving it to *device* only while it runs."""
    for block in dit.blocks:
        block.to("cpu")
        block.register_forward_pre_hook(lambda module, args: module.to(device) and None)
        block.register_forward_hook(lambda module, args, out: module.to("cpu") and None)


class TextToImagePipeline:
    """The reference pipeline of one worker.

    Args:
        server_args: The worker's server arguments.
        device: The worker's device (``get_local_torch_device()``).
    """

    def __init__(self, server_args: ServerArgs, device: torch.device) -> None:
        from sglang.multimodal_gen.runtime.platforms import current_platform

        layout = read_layout(server_args.model_path)
        config = server_args.pipeline_config
        self.device = device
        self.dtype: torch.dtype = getattr(torch, config.dtype)
        current_platform.verify_model_arch(layout.architecture("transformer"))
        dit_config = layout.configs["transformer"]
        head_size = int(dit_config["hidden_size"]) // int(dit_config["num_attention_heads"])
        self.attention: AttentionSelection = select_attn_backend(
            server_args.attention_backend, head_size
        )
        text_config = dict(layout.configs["text_encoder"])
        if config.text_max_length is not None:
            text_config["max_length"] = config.text_max_length
        self.text_encoder = TextEncoder(text_config)
        self.dit = DiffusionTransformer(dit_config, self.attention.backend)
        vae = VAEDecoder(layout.configs["vae"])
        parts = {"text_encoder": self.text_encoder, "transformer": self.dit, "vae": vae}
        for name, module in parts.items():
            load_weights(module, layout.root / name)
            module.eval()
        self.text_encoder.to(device)
        self.dit.to(device, self.dtype)
        if server_args.dit_layerwise_offload and device.type != "cpu":
            _offload_layerwise(self.dit, device)
        optimized = current_platform.optimize_vae(vae.to(device))
        if not isinstance(optimized, VAEDecoder):
            raise TypeError(f"optimize_vae() returned {optimized!r}, not the decoder it was given")
        self.vae = optimized
        self.scheduler = FlowMatchEulerScheduler(layout.scheduler, config.flow_shift)
        self.transformer: Callable[..., torch.Tensor] = self.dit
        if server_args.enable_torch_compile:
            self.transformer = torch.compile(self.dit, **build_torch_compile_kwargs())  # type: ignore[call-overload]
        self.latent_channels = int(dit_config["in_channels"])
        self.stride = self.vae.upscale * int(dit_config["patch_size"])

    def _encode(self, prompts: Sequence[str]) -> torch.Tensor:
        ids = tokenize(prompts, self.text_encoder.max_length).to(self.device)
        encoded: torch.Tensor = self.text_encoder(ids)
        return encoded.to(self.dtype)

    def _velocity(
        self, x: torch.Tensor, t: torch.Tensor, text: torch.Tensor, negative: torch.Tensor | None,
        scale: float,
    ) -> torch.Tensor:  # fmt: skip
        if negative is None:
            return self.transformer(x, t, text).float()
        both = self.transformer(torch.cat([x, x]), torch.cat([t, t]), torch.cat([text, negative]))
        cond, uncond = both.float().chunk(2)
        return uncond + scale * (cond - uncond)

    def generate(self, prompts: Sequence[str], params: SamplingParams) -> list[Image]:
        """Generate one image per prompt (seeded: equal inputs give equal bytes).

        Raises:
            ValueError: The size is not a multiple of the model's pixel stride.
        """
        from sglang.multimodal_gen.runtime.platforms import current_platform

        if params.height % self.stride or params.width % self.stride:
            raise ValueError(
                f"height and width must be multiples of {self.stride} for this model "
                f"(got {params.width}x{params.height})"
            )
        with current_platform.inference_mode():
            current_platform.seed_everything(params.seed)
            scale = self.vae.upscale
            shape = (
                len(prompts),
                self.latent_channels,
                params.height // scale,
                params.width // scale,
            )
            generator = torch.Generator("cpu").manual_seed(params.seed)
            x = torch.randn(shape, generator=generator, dtype=torch.float32).to(self.device)
            text = self._encode(prompts)
            negative = None
            if params.guidance_scale > 1.0:
                negative = self._encode([params.negative_prompt] * len(prompts))
            sigmas = self.scheduler.sigmas(params.num_inference_steps).to(self.device)
            for i in range(params.num_inference_steps):
                t = self.scheduler.timestep(sigmas[i]).expand(len(prompts))
                v = self._velocity(x.to(self.dtype), t, text, negative, params.guidance_scale)
                x = self.scheduler.step(v, sigmas[i], sigmas[i + 1], x)
            pixels = self.vae(x.float())
            rgb = ((pixels + 1) * 127.5).round().clamp(0, 255).to(torch.uint8)
            rgb = rgb.permute(0, 2, 3, 1).cpu()
        return [(params.width, params.height, bytes(image.flatten().tolist())) for image in rgb]
