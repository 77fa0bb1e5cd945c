"""The enigma CLI tests (a package: see conftest.py)."""
