"""The one thing pyproject.toml cannot say: the optional C extension
(``subagents._speedups``: the injection detector's blank collapsing and normalising in one
pass; ``_speedups_text.c`` is included by ``_speedups.c``).

``optional=True``: when it cannot be built (no C compiler or Python headers), setuptools
warns and the install goes on without it; the detector then uses its Python functions,
which give exactly the same results (see src/subagents/lint/rules/injection_text.py)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "subagents._speedups",
            sources=["src/subagents/_speedups.c"],
            depends=["src/subagents/_speedups_text.c", "src/subagents/_speedups_similar.c",
                     "src/subagents/_speedups_read.c"],
            optional=True,
        )
    ]
)
