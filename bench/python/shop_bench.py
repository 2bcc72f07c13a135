"""The live-mode benchmark's web shop (bench/live.go): integration/testdata/live/shop_server.py
with a heavier handler, so that the handler's own work is measurable. GET /cart/ITEM/QTY/ITEM/QTY/...
prices a cart: handle parses the path, prices every line (line, price), applies the discounts
and renders the receipt. audit is never called while serving: the benchmark watches it to measure
an active watch on a function off the request path. HTTP/1.1, so a client keeps its connection; TCP_NODELAY, which adi live sets on the
program's sockets anyway (dap/nodelay), so that plain python is not held up by delayed ACKs."""
import http.server
import json

PRICES = {"apple": 3, "pear": 5, "plum": 2, "fig": 7, "kiwi": 4, "lime": 1}
BULK = 3


def parse(path):
    parts = path.strip("/").split("/")[1:]
    items = []
    for i in range(0, len(parts) - 1, 2):
        items.append((parts[i], int(parts[i + 1])))
    return items


def price(item, qty):
    unit = PRICES.get(item, 0)
    total = unit * qty
    if qty > BULK:
        total = total * 9 // 10
    return total


def line(item, qty):
    total = price(item, qty)
    return {"item": item, "qty": qty, "total": total}


def discount(total, count):
    if count >= 5:
        total -= total // 20
    if total > 100:
        total -= 5
    return total


def receipt(lines, total):
    rows = ["%-6s x%-3d %5d" % (x["item"], x["qty"], x["total"]) for x in lines]
    return "\n".join(rows) + "\n%-11s %5d" % ("total", total)


def handle(method, path):
    lines = [line(item, qty) for item, qty in parse(path)]
    total = discount(sum(x["total"] for x in lines), len(lines))
    return 200, {"lines": lines, "total": total, "receipt": receipt(lines, total)}


def audit(lines):
    return sum(x["qty"] for x in lines)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # as adi live sets it on every socket (dap/nodelay): the same for all

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
