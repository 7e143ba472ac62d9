"""Deliberately broken platform plugins and serve backends, one defect each.

Every broken platform is the same correct platform (:class:`platforms.Good`,
host memory, ``PlatformEnum.OOT``) with one thing wrong; the self-test
installs one of them at a time as a real distribution and checks that the
conformance suite fails the expected clause and no other. The activation
callbacks live here and import nothing heavy, except where that is the defect.
"""

from __future__ import annotations

import time

_PLATFORMS = "conformance_broken.platforms"


def good() -> str | None:
    """The correct platform: every clause passes or skips."""
    return f"{_PLATFORMS}:Good"


def imports_torch() -> str | None:
    """Defect (ACT-03): the callback imports torch."""
    import torch  # noqa: F401

    return f"{_PLATFORMS}:Good"


def initialises_device() -> str | None:
    """Defect (ACT-04): the callback initialises a device context.

    There is no accelerator on the test machine, so the context is
    simulated where torch records it (``torch.cuda.is_initialized()``).
    Importing torch is declared expected-to-fail (ACT-03) in the
    expectations file the self-test passes, as a vendor whose probe needs
    torch would declare it.
    """
    import torch

    torch.cuda._initialized = True
    return f"{_PLATFORMS}:Good"


def slow() -> str | None:
    """Defect (ACT-06): the callback takes more than a second."""
    time.sleep(1.3)
    return f"{_PLATFORMS}:Good"


def returns_class() -> object:
    """Defect (ACT-01): the callback returns the class, not its qualname."""
    from .platforms import Good

    return Good


def named(defect: str) -> str:
    """The qualname of the platform class with *defect*."""
    return f"{_PLATFORMS}:{defect}"


def signature_drift() -> str | None:
    """Defect (CON-01): an override renames a parameter."""
    return named("SignatureDrift")


def public_helper() -> str | None:
    """Defect (CON-04): the class adds a public helper."""
    return named("PublicHelper")


def identity_lies() -> str | None:
    """Defect (CON-03): ``is_cuda()`` says yes on an OOT platform."""
    return named("IdentityLies")


def memory_lies() -> str | None:
    """Defect (DEV-01): the current usage exceeds the total memory."""
    return named("MemoryLies")


def wrong_type() -> str | None:
    """Defect (DEV-03): ``is_pin_memory_available()`` returns an int."""
    return named("WrongType")


def lossy_kv_pool() -> str | None:
    """Defect (SUB-02): the KV pool keeps only the first token of each write."""
    return named("LossyKVPool")


def wrong_op() -> str | None:
    """Defect (OPS-01): the platform's RMSNorm is off by one percent."""
    return named("WrongOp")


def prefix_blind_attention() -> str | None:
    """Defect (SUB-08): prefill attention ignores the keys of cached and shared pages."""
    return named("PrefixBlindAttention")


def graphs_never_captured() -> str | None:
    """Defect (SUB-07): declares graph capture, but its graph runner captures nothing."""
    return named("GraphsNeverCaptured")


def stale_graph_inputs() -> str | None:
    """Defect (SUB-07): each size's replays return what its first (captured) batch gave."""
    return named("StaleGraphInputs")


def good_graphs() -> str | None:
    """Correct: declares graph capture, and its runner replays decode batches."""
    return named("GoodGraphs")


def wrong_diffusion_op() -> str | None:
    """Defect (OPS-04): the diffusion platform's RMSNorm is off by one percent."""
    return "conformance_broken.diffusion:WrongDiffusionOp"


def bad_server_args() -> str | None:
    """Defect (LIF-01): the defaults leave ``--page-size 0``."""
    return named("BadServerArgs")
