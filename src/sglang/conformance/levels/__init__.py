"""The suite's levels, one test module each, collected from the installed package.

Vendors who want more subclass these classes in their own test files and
run them with ``pytest --sglang-conformance``, which provides the fixtures
(``sglang_target``, ``sglang_platform``, ``sglang_serve_backend``).
"""
