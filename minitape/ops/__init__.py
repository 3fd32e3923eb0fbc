"""The primitive ops, one table per family: each row is an op's forward function and its gradient rule."""
