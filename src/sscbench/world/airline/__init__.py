"""τ-bench's airline domain."""
