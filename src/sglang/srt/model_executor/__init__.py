"""Model loading and execution: the loader, the batch description, the runner, graph runners."""
