"""The pipeline's layers: dispatched custom ops, attention and their torch.library op."""
