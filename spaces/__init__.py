"""officegym subpackage."""
