"""flask: requests through the test client; DefaultJSONProvider.response runs for the two JSON ones.

A batch of plain requests comes first, so the two JSON responses start after adi's first run has
used its eager FLT budget, and their FLTs need a re-run."""
from flask import Flask, jsonify

app = Flask(__name__)


@app.route("/ping")
def ping():
    return "pong"


@app.route("/total/<int:n>")
def total(n):
    return jsonify(total=sum(range(n)))


client = app.test_client()
codes = [client.get("/ping").status_code for _ in range(150)]
print(len(codes), set(codes))
for n in (3, 5):
    r = client.get("/total/%d" % n)
    print(r.status_code, r.get_json())
