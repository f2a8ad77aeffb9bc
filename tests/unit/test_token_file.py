"""The sign-in token file (sitewalk_agent.token_file): a token removed from it is refused without a restart."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from sitewalk_agent.token_file import TokenFile, TokenFileError

ANA = "ana-token-0123456789abcdef"
BEN = "ben-token-0123456789abcdef"


def write(path: Path, tokens: dict[str, str], bump: int = 0) -> None:
    path.write_text(json.dumps({t: {"identity": who, "display_name": who.title()} for t, who in tokens.items()}))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + bump))  # a new stamp, even within one clock tick


def who(tokens: TokenFile, token: str) -> str | None:
    found = asyncio.run(tokens.inspector(token))
    return found["identity"] if found else None


def test_a_token_removed_from_the_file_is_refused_at_the_next_check(tmp_path):
    path = tmp_path / "tokens.json"
    write(path, {ANA: "ana", BEN: "ben"})
    tokens = TokenFile(path, recheck_seconds=0)
    assert who(tokens, ANA) == "ana" and who(tokens, BEN) == "ben"
    write(path, {BEN: "ben"}, bump=1_000_000)  # Ana's token revoked
    assert who(tokens, ANA) is None and who(tokens, BEN) == "ben"


def test_the_file_is_not_looked_at_again_before_the_recheck_time(tmp_path):
    path = tmp_path / "tokens.json"
    write(path, {ANA: "ana"})
    tokens = TokenFile(path, recheck_seconds=3600)
    write(path, {BEN: "ben"}, bump=1_000_000)
    assert who(tokens, ANA) == "ana"  # within the hour: the tokens read at start


@pytest.mark.parametrize("broken", ["{not json", "{}", None])
def test_a_changed_file_that_cannot_be_used_keeps_the_tokens_read_before(tmp_path, broken):
    path = tmp_path / "tokens.json"
    write(path, {ANA: "ana"})
    tokens = TokenFile(path, recheck_seconds=0)
    if broken is None:
        path.unlink()
    else:
        path.write_text(broken)
    assert not tokens.reload_if_changed() and who(tokens, ANA) == "ana"
    write(path, {BEN: "ben"}, bump=1_000_000)  # repaired: read
    assert who(tokens, ANA) is None and who(tokens, BEN) == "ben"


def test_an_unusable_file_at_start_stops_the_server(tmp_path):
    with pytest.raises(TokenFileError, match="cannot read it"):
        TokenFile(tmp_path / "missing.json")
