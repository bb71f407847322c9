"""A PostgreSQL URL is shown without its password in every form a user may write it: in the user part (even with
characters that should have been percent-encoded), or as a ``password`` parameter."""

from __future__ import annotations

import pytest

from evalcore.core.errors import ConfigError
from evalcore.storage.location import parse_location

#: Pieces of the password: a leak of any part of it shows one.
HEAD, TAIL = "Pa55head", "tail77X"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"postgresql://ann:{HEAD}{TAIL}@db.local:5432/evals", "postgresql://ann:***@db.local:5432/evals"),
        (f"postgresql://ann@db.local/evals?password={HEAD}", "postgresql://ann@db.local/evals?password=***"),
        (
            f"postgresql://db.local/evals?sslmode=require&user=ann&password={HEAD}&application_name=x",
            "postgresql://db.local/evals?sslmode=require&user=ann&password=***&application_name=x",
        ),
        (f"postgres://ann:{HEAD}%40{TAIL}@db.local/evals", "postgresql://ann:***@db.local/evals"),
        ("postgresql://ann@db.local/evals", "postgresql://ann@db.local/evals"),
    ],
)
def test_a_postgresql_url_is_shown_without_its_password(url, shown):
    assert str(parse_location(url)) == shown


@pytest.mark.parametrize("char", ["?", "#", "/", "@"])
def test_a_password_with_a_character_to_encode_is_refused_without_showing_it(char):
    with pytest.raises(ConfigError) as refused:
        parse_location(f"postgresql://ann:{HEAD}{char}{TAIL}@db.local:5432/evals")
    said = str(refused.value)
    assert HEAD not in said and TAIL not in said
    assert "percent-encode" in said and "PGPASSWORD" in said
    assert "postgresql://ann:***@" in said
