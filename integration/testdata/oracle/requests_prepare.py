"""requests: prepare two requests (no network); PreparedRequest.prepare_url runs twice.

A batch of URL quoting and header handling runs first, as a client's setup would: the two
prepare_url calls then start after adi's first run has used its eager FLT budget, so their FLTs
need a re-run."""
import requests
from requests.structures import CaseInsensitiveDict
from requests.utils import requote_uri

headers = CaseInsensitiveDict()
for i in range(2000):
    headers["X-Item-%d" % (i % 20)] = requote_uri("http://example.com/item %d?q=%d" % (i, i))
print(len(headers))

for url in ("http://example.com/a?x=1", "http://example.com/b path?y=2"):
    req = requests.Request("GET", url, params={"k": "v"}, headers={"X-N": "1"})
    p = req.prepare()
    print(p.method, p.url)
