"""The interleaving explorer: every order of the model's transitions within a bounded scope."""
