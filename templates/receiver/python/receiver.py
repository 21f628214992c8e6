#!/usr/bin/env python3
"""A webhook receiver for Bula and the FJD payment service it simulates.

Python 3.9 or later, standard library only, nothing to install:
python3 receiver.py (see README.md).
"""
import hashlib
import hmac
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET = os.environ.get("BULA_WEBHOOK_SECRET", "")
if not SECRET:
    sys.exit("Set BULA_WEBHOOK_SECRET to your endpoint's whsec_ signing secret (`npx bula listen --print-secret` prints one).")
PORT = int(os.environ.get("PORT", "4242"))
PATH = "/webhooks"
# A delivery older than this is refused: a captured one cannot be replayed later (spec, Delivery 2).
TOLERANCE_SECONDS = 5 * 60
MAX_BODY_BYTES = 1024 * 1024
# Event ids already taken in, one per line: retries re-send the same event_id, also after this receiver restarts.
SEEN_FILE = os.environ.get("BULA_SEEN_FILE", "processed-events.txt")
seen = set()
if os.path.exists(SEEN_FILE):
    with open(SEEN_FILE, encoding="utf-8") as lines:
        seen = {line.strip() for line in lines if line.strip()}
# ThreadingHTTPServer answers requests side by side, and a duplicate can arrive
# with the original: the check and the record must be one step.
seen_lock = threading.Lock()


def refusal(raw_body: bytes, headers) -> "str | None":
    """Why a delivery is refused, or None when it is genuine.

    Service-Signature is `v1=<hex>`, or two of them during the 72 hours after
    a secret rotation; each is HMAC-SHA256 of `<Service-Timestamp>.<raw body>`.
    Any one made with our secret will do.
    """
    timestamp = headers.get("Service-Timestamp", "")
    signatures = [part.strip()[3:] for part in headers.get("Service-Signature", "").split(",") if part.strip().startswith("v1=")]
    # isascii(): isdigit() alone takes "²" and other digits int() cannot read, and the handler would crash.
    if not (timestamp.isascii() and timestamp.isdigit()) or not signatures:
        return "missing or malformed Service-Signature or Service-Timestamp"
    if abs(time.time() - int(timestamp)) > TOLERANCE_SECONDS:
        return "Service-Timestamp is more than 5 minutes away"
    expected = hmac.new(SECRET.encode(), timestamp.encode() + b"." + raw_body, hashlib.sha256).hexdigest()
    # compare_digest: a comparison that stops at the first wrong character would tell an attacker how much was right.
    # It takes ASCII strings only: a header byte above 0x7F would raise and drop the connection instead of a 400.
    if any(signature.isascii() and hmac.compare_digest(signature, expected) for signature in signatures):
        return None
    return "no signature matches"


def handle(event: dict) -> None:
    """Payloads are additive: read the fields you need, and ignore event types you do not handle."""
    obj = event["data"]["object"]
    if event["type"] == "checkout_session.succeeded":
        order = (obj.get("metadata") or {}).get("order_id", "-")
        print(f"{event['mode']}: paid {obj['id']} (FJ${obj['amount'] / 100:.2f}), order {order}: fulfil it", flush=True)
    elif event["type"] in ("checkout_session.failed", "checkout_session.cancelled"):
        print(f"{event['mode']}: {obj['id']} {obj['status']}: release the order", flush=True)
    else:
        print(f"{event['mode']}: {event['type']} {event['event_id']}: not handled here", flush=True)


class Receiver(BaseHTTPRequestHandler):
    # Seconds a client may take to send its request: one that stalls would hold a thread for good.
    timeout = 30

    def answer(self, status: int, body: dict) -> None:
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_POST(self) -> None:
        if self.path != PATH:
            return self.answer(404, {"error": "not found"})
        # A Content-Length that is not a number would raise, and a negative one would read until the client hangs up.
        declared = self.headers.get("Content-Length", "0")
        if not (declared.isascii() and declared.isdigit()):
            return self.answer(400, {"error": "missing or malformed Content-Length"})
        length = int(declared)
        if length > MAX_BODY_BYTES:
            return self.answer(413, {"error": "body too large"})
        # The raw bytes, before any JSON parsing: the signature covers exactly what was sent.
        raw_body = self.rfile.read(length)
        why = refusal(raw_body, self.headers)
        # 4xx: the delivery is not genuine, or too old; a 5xx would say this receiver failed, and it would be retried.
        if why:
            print(f"refused a delivery: {why}", file=sys.stderr, flush=True)
            return self.answer(400, {"error": why})
        try:
            event = json.loads(raw_body)
        except ValueError:
            return self.answer(400, {"error": "the body is not JSON"})
        if not isinstance(event, dict) or not isinstance(event.get("event_id"), str):
            return self.answer(400, {"error": "the body has no event_id"})
        # The id from the signed body, not the X-Service-Event-Id header, which the signature does not cover.
        # Under the lock, so that two copies arriving together are handled once.
        with seen_lock:
            if event["event_id"] in seen:
                return self.answer(200, {"received": True, "duplicate": True})
            # Work, then record the id, then answer: if the work fails or this receiver dies on the way, no 2xx
            # went out and the sender delivers the event again. Recording first lost it: every retry was answered
            # "duplicate". Work that takes more than a moment belongs on a queue: store the event, answer, then work
            # from the queue (docs/webhooks-receiver.md, rule 5), since a slow answer looks like a failure.
            try:
                handle(event)
            except Exception as error:  # noqa: BLE001 - any failure of the work is answered 500, so it is retried
                print(f"could not handle {event['event_id']}: {error}", file=sys.stderr, flush=True)
                return self.answer(500, {"error": "could not handle the event: deliver it again"})
            with open(SEEN_FILE, "a", encoding="utf-8") as log:
                log.write(event["event_id"] + "\n")
            seen.add(event["event_id"])
        self.answer(200, {"received": True})

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the name http.server uses
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", PORT), Receiver)
    print(f"Receiver listening on http://localhost:{server.server_address[1]}{PATH}", flush=True)
    server.serve_forever()
