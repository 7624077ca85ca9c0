"""Text from a file shown in a message (`features.runtime.shown`): one printable line, cut when long."""
from __future__ import annotations

from nli_baselines.features.runtime.shown import shown


def test_control_format_and_surrogate_characters_are_escaped():
    assert shown("a\nb\r\tc\x1b[2J\x7f") == "a\\nb\\r\\tc\\x1b[2J\\x7f"
    assert shown("right\u202eleft\u2028x\ud800") == "right\\u202eleft\\u2028x\\ud800"
    assert shown("é ß 中文 😀") == "é ß 中文 😀"  # printable text stays as it is
    assert shown(7) == "7"


def test_long_text_is_cut_with_the_count_of_the_rest():
    assert shown("x" * 10, limit=4) == "xxxx... (10 characters)"
    assert shown("\n" * 10, limit=2) == "\\n\\n... (10 characters)"
    assert shown("abcd", limit=4) == "abcd"
