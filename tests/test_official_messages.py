"""The official tools' messages, read from a copy of the harness with ast (never executed), as templates.

The official code here is a stand-in in our own words, so these tests need neither ``../shared`` nor the
official text.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _fake_official import make_checkout

from pytest_vitabench.official.messages import MessageKey, ToolMessages, function_messages
from pytest_vitabench.official.source import OfficialSource, OfficialSourceError, locate
from pytest_vitabench.official.tool_answers import check_official_messages, official_message_keys

CODE = '''
import pathlib
pathlib.Path(__file__).with_name("EXECUTED").write_text("ran")


class Tools:
    def book(self, seat, order, rows):
        """A docstring is no message."""
        assert seat, "pick a seat first"
        assert order.status == "open", f"order {order.order_id} is {order.status!r}"
        when = now("%Y-%m-%d %H:%M:%S")  # a format string, not a message
        if rows[0] > 1:
            raise ValueError(f"{rows[0]:>3} rows, {type(seat)} seat")
        return "booked" if when else "closed"
'''


@pytest.fixture
def source(tmp_path) -> OfficialSource:
    package = tmp_path / "vita"
    (package / "domains" / "delivery").mkdir(parents=True)
    (package / "domains" / "delivery" / "tools.py").write_text(CODE, encoding="utf-8")
    return OfficialSource(package, "package directory")


def _say(source: OfficialSource, *placeholders: str, nth: int = 0, values: tuple = ()) -> str:
    return ToolMessages(source)(MessageKey("delivery", "book", placeholders, nth), *values)


def test_each_asserted_raised_or_returned_string_is_a_message_in_source_order(source):
    path = source.package_dir / "domains" / "delivery" / "tools.py"
    shapes = [(m.placeholders, m.template) for m in function_messages(source.function(path, "book"))]
    assert shapes == [((), "pick a seat first"), (("order.order_id", "order.status"), "order {0} is {1!r}"),
                      (("rows[0]", "type(seat)"), "{0:>3} rows, {1} seat"), ((), "booked"), ((), "closed")]
    assert not (path.parent / "EXECUTED").exists()  # parsed, never run


def test_placeholders_are_filled_as_the_f_string_formats_them(source):
    assert _say(source, "order.order_id", "order.status", values=("O1", "paid")) == "order O1 is 'paid'"
    assert _say(source, "rows[0]", "type(seat)", values=(7, int)) == "  7 rows, <class 'int'> seat"


def test_the_ordinal_counts_among_the_messages_of_the_same_placeholders(source):
    assert [_say(source, nth=n) for n in range(3)] == ["pick a seat first", "booked", "closed"]


def test_a_missing_message_names_the_file_the_function_and_its_shape(source):
    path = source.package_dir / "domains" / "delivery" / "tools.py"
    with pytest.raises(OfficialSourceError, match=rf"{path}: book\(\) has 3 message\(s\) with no placeholder, "
                                                  r"the official tool results need 4"):
        _say(source, nth=3)
    with pytest.raises(OfficialSourceError, match=r"book\(\) has 0 message\(s\) with \{seat\}"):
        _say(source, "seat", values=("A1",))


def test_a_missing_function_or_file_is_named(source, tmp_path):
    with pytest.raises(OfficialSourceError, match=r"tools.py: no function cancel\(\)"):
        ToolMessages(source)(MessageKey("delivery", "cancel", ()))
    with pytest.raises(OfficialSourceError, match=r"cannot read the official code .*instore/tools.py"):
        ToolMessages(source)(MessageKey("instore", "book", ()))


def test_every_declared_message_is_found_in_a_copy_that_has_them(tmp_path):
    keys = official_message_keys()
    assert len(keys) > 150 and {k.file for k in keys} == {"delivery", "instore", "ota", "shared"}
    source = locate(str(make_checkout(tmp_path / "harness")))
    assert source is not None
    check_official_messages(source)


def test_a_copy_without_one_fails_before_any_item_runs(tmp_path):
    checkout = make_checkout(tmp_path / "harness")
    tools: Path = checkout / "src" / "vita" / "domains" / "ota" / "tools.py"
    tools.write_text(tools.read_text(encoding="utf-8").replace("def pay_taxi_order", "def pay_taxi"),
                     encoding="utf-8")
    source = locate(str(checkout))
    assert source is not None
    with pytest.raises(OfficialSourceError, match=rf"{tools.resolve()}: no function pay_taxi_order\(\)"):
        check_official_messages(source)
