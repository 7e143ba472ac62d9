"""Attention backends and their selection through the platform.

:func:`select_attn_backend` asks ``current_platform.get_device_capability()``
and ``current_platform.get_attn_backend_cls_str(selected, head_size)``. An
explicit selection (``--attention-backend``) must be an
:class:`AttentionBackendEnum` name; the platform's answer may be such a
name or the ``"pkg.mod:Class"`` path of its own backend.
"""

from sglang.multimodal_gen.runtime.layers.attention.selector import (
    AttentionBackend,
    AttentionBackendEnum,
    AttentionSelection,
    select_attn_backend,
)

__all__ = ["AttentionBackend", "AttentionBackendEnum", "AttentionSelection", "select_attn_backend"]
