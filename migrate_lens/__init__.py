"""migrate-lens: how much it takes to move a PyTorch codebase to JAX/Flax, found statically."""

__version__ = "0.1.0"

#: Where each rule's documentation lives (SARIF ``helpUri``, report links): docs/rules.md in the
#: project repository, one anchor per rule code (``#ml101``).
DOCS_URL = "https://github.com/migrate-lens/migrate-lens/blob/main/docs/rules.md"
