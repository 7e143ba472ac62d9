"""Sequence parallelism: the process group and Ulysses-style ``all_to_all_4D``.

:func:`init_distributed` joins the sequence-parallel group with the
platform's ``get_torch_distributed_backend_str()`` (and a ``device_id`` when
``supports_distributed_device_id()``); :func:`all_to_all_4D` runs through
the communicator class ``get_all_to_all_communicator_cls()`` returns,
falling back to ``get_device_communicator_cls()``, then to
:class:`TorchAllToAll`.
"""

from sglang.multimodal_gen.runtime.distributed.communication import (
    AllToAllCommunicator,
    SequenceParallelGroup,
    TorchAllToAll,
    all_gather_seq,
    all_to_all_4D,
    get_sp_group,
    init_distributed,
)

__all__ = [
    "AllToAllCommunicator",
    "SequenceParallelGroup",
    "TorchAllToAll",
    "all_gather_seq",
    "all_to_all_4D",
    "get_sp_group",
    "init_distributed",
]
