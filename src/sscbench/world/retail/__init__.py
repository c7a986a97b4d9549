"""τ-bench's retail domain."""
