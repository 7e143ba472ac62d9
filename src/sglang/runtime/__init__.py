"""``sglang.runtime``: the engine behind both SGLang runtimes.

Entry-point discovery, platform selection, the activation gate, the hook
engine and plugin loading are written once here and instantiated per
runtime (SRT and diffusion) from data tables. The documented import paths
(``sglang.srt.platforms``, ``sglang.multimodal_gen.runtime.platforms``, ...)
expose these objects.
"""
