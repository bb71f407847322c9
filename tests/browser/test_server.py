"""``streamlit run app.py`` over HTTP: Streamlit's frontend files come from app.py's middleware."""

from __future__ import annotations

import http.client
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from streamlit import file_util

pytestmark = pytest.mark.browser


def test_the_frontend_files_a_first_visit_asks_for_come_from_memory_on_one_kept_alive_connection(app_url):
    address = urlsplit(app_url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
    connection.request("GET", "/")
    page = connection.getresponse().read().decode()
    names = re.findall(r'(?:src|href)="\./(static/(?:js|css)/[^"]+)"', page)
    assert len(names) > 20  # the entry script and the modules it preloads
    for name in names[:10]:
        connection.request("GET", f"/{name}")
        reply = connection.getresponse()
        body = reply.read()
        assert reply.status == 200 and body == (Path(file_util.get_static_dir()) / name).read_bytes()
        assert reply.getheader("cache-control") == "public, immutable, max-age=31536000"
        assert reply.getheader("etag") is None  # Streamlit's own route sends one; FrontendAssets does not
    connection.close()
