"""The built-in platforms of both runtimes, and the hardware probes behind them.

* :mod:`~sglang.runtime.builtin.families` holds one table of device families
  (CPU, CUDA, ROCm, XPU, MPS, NPU, MUSA): how each is probed, its torch
  namespace, device type, distributed backend and dispatch keys. Probes take
  a torch-like namespace, so the fallback chain can be tested without the
  hardware.
* :mod:`~sglang.runtime.builtin.ops` implements the device operations once,
  parameterised by a family.
* :mod:`~sglang.runtime.builtin.srt` and :mod:`~sglang.runtime.builtin.diffusion`
  compose those operations with each runtime's base class and enum.

Importing any of these modules never imports torch; torch is imported when
a probe runs or a device operation is called.
"""
