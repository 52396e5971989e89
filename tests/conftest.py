import sys
from pathlib import Path

# tests/ helpers (corpus.py, fake_upstream.py) import as top-level modules.
sys.path.insert(0, str(Path(__file__).resolve().parent))
