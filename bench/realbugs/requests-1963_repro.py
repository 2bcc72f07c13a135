# psf__requests-1963: Session.resolve_redirects copies the original request for every redirect,
# so a 303 that turned POST into GET is undone by the 307 after it.
from urllib.parse import urlsplit

import requests
from requests.adapters import BaseAdapter
from requests.models import Response

# POST /order -> 303 See Other -> GET /receipt -> 307 Temporary Redirect -> GET /receipt/v2
ROUTES = {"/order": (303, "/receipt"), "/receipt": (307, "/receipt/v2")}


class FakeShop(BaseAdapter):
    """Answers every request in memory, logging each request's method and path."""

    def __init__(self):
        super().__init__()
        self.log = []

    def send(self, request, **kwargs):
        path = urlsplit(request.url).path
        self.log.append(request.method + " " + path)
        status, location = ROUTES.get(path, (200, None))
        resp = Response()
        resp.status_code = status
        if location:
            resp.headers["Location"] = location
        resp.url, resp.request = request.url, request
        resp._content, resp._content_consumed = b"ok", True
        return resp

    def close(self):
        pass


def checkout(session, item):
    return session.post("http://shop.test/order", data={"item": item})


def main():
    session = requests.Session()
    shop = FakeShop()
    session.mount("http://", shop)
    checkout(session, "book")
    print(shop.log)
    print("expected:", ["POST /order", "GET /receipt", "GET /receipt/v2"])


main()
