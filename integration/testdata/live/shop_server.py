"""A small web shop on the standard library's http.server: GET /quote/ITEM/QTY answers the price."""
import http.server
import json
import sys

PRICES = {"apple": 3, "pear": 5}
BULK = 3


def quote(item, qty):
    price = PRICES.get(item, 0)
    total = price * qty
    if qty > BULK:
        total = total * 9 // 10
    return total


def handle(method, path):
    parts = path.strip("/").split("/")
    item, qty = parts[1], int(parts[2])
    total = quote(item, qty)
    body = {"item": item, "qty": qty, "total": total}
    return 200, body


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        status, body = handle("GET", self.path)
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, fmt, *args):
        pass


def main():
    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    print("listening on port", server.server_address[1], flush=True)
    server.serve_forever(poll_interval=0.1)


if __name__ == "__main__":
    main()
