"""Where the tests find the repository and the shared real graphs (absent: tests skip)."""

from pathlib import Path

#: The repository root.
REPO = Path(__file__).resolve().parents[1]
#: The real graphs beside the repository (gzipped Matrix Market); may not exist.
DATA = REPO.parent / "shared" / "data"
