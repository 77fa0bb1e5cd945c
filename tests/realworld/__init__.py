"""Real-world Metal sources run through enigma (a package: see conftest.py)."""
