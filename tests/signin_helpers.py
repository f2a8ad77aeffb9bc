"""Two inspectors with sign-in tokens, and the token file a server with sign-in reads (SITEWALK_TOKENS)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ANA", "BEN", "INSPECTORS", "Inspector", "write_token_file"]


@dataclass(frozen=True)
class Inspector:
    token: str
    identity: str
    display_name: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


ANA = Inspector("ana-token-0123456789abcdef", "ana", "Ana Ortiz")
BEN = Inspector("ben-token-0123456789abcdef", "ben", "Ben Okafor")
INSPECTORS = (ANA, BEN)


def write_token_file(folder: Path) -> Path:
    """The token file of INSPECTORS in `folder` (readable by the user Aegra's servers run as)."""
    path = folder / "tokens.json"
    path.write_text(json.dumps({i.token: {"identity": i.identity, "display_name": i.display_name}
                                for i in INSPECTORS}))
    path.chmod(0o644)
    return path
