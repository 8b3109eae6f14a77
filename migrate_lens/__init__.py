"""migrate-lens: how much it takes to move a PyTorch codebase to JAX/Flax, found statically."""

__version__ = "0.1.0"
