import pytest
import redis

from webapp.config import ConfigError
from webapp.jobs.embedded_redis import EmbeddedRedis, find_redis_server


def test_the_bundled_redis_server_is_found():
    assert find_redis_server().endswith("redis-server")


def test_it_starts_on_a_private_socket_refuses_a_second_start_and_cleans_up(tmp_path):
    server = EmbeddedRedis(tmp_path / "redis.sock")
    server.start()
    try:
        client = redis.Redis.from_url(server.url)
        assert client.ping()
        assert client.config_get("save") == {"save": ""}
        client.close()
        with pytest.raises(ConfigError, match="another Furrow is running"):
            EmbeddedRedis(tmp_path / "redis.sock").start()
    finally:
        server.stop()
    assert not (tmp_path / "redis.sock").exists()
    assert server.is_answering() is False
