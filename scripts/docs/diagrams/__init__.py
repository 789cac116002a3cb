"""The teaching diagrams: a drawing kit (kit.py), the numbers they show (inputs.py), one module
per chapter (ch00.py ... ch07.py) and one for the shared pages (docs_pages.py).
Run `python3 scripts/docs/diagrams --help` (__main__.py)."""
