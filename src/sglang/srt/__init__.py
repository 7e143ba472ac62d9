"""SGLang Runtime (SRT): the LLM serving runtime's documented import paths."""
