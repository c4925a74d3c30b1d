from datetime import UTC, datetime, timedelta

from webapp.auth.throttle import Limit, seconds_to_wait

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def minutes_ago(*minutes):
    return [NOW - timedelta(minutes=m) for m in minutes]


def test_below_the_limit_there_is_no_wait():
    assert seconds_to_wait(minutes_ago(1, 2, 3, 4), Limit(5), NOW) == 0


def test_at_the_limit_wait_until_the_oldest_counting_failure_ages_out():
    wait = seconds_to_wait(minutes_ago(1, 2, 3, 4, 10), Limit(5), NOW)
    assert 5 * 60 <= wait <= 5 * 60 + 1


def test_failures_outside_the_window_do_not_count():
    assert seconds_to_wait(minutes_ago(1, 2, 3, 4, 16, 20), Limit(5), NOW) == 0
