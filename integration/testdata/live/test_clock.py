from unittest import mock

import clock


def test_greeting_monkeypatch(monkeypatch):
    monkeypatch.setattr(clock, "hour", lambda: 9)
    assert clock.greeting() == "good morning"


def test_greeting_mock():
    with mock.patch("clock.hour", return_value=20):
        assert clock.greeting() == "good evening"
