"""A merchant's own test, as it would run against the real service: only the
base URL and the key come from the environment (bula exec, or the ready line
of bula serve --json, sets both)."""
import json
import os
import urllib.request
import uuid

BASE_URL = os.environ["BULA_BASE_URL"]
HEADERS = {"Authorization": f"Bearer {os.environ['BULA_API_KEY']}", "Content-Type": "application/json"}


def call(method, path, body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(BASE_URL + path, data=data, method=method, headers={**HEADERS, **(headers or {})})
    with urllib.request.urlopen(request) as response:
        return response.status, json.load(response)


def test_a_customer_pays_at_checkout():
    status, session = call(
        "POST",
        "/v1/checkout-sessions",
        {"amount": 4500, "currency": "FJD", "metadata": {"orderId": "1042"}},
        {"Idempotency-Key": str(uuid.uuid4())},
    )
    assert status == 201
    assert session["status"] == "pending"

    # The simulator's stand-in for the customer on the hosted page.
    status, _ = call("POST", f"/_sim/checkout-sessions/{session['id']}/pay", {"outcome": "succeeded"})
    assert status == 200

    _, after = call("GET", f"/v1/checkout-sessions/{session['id']}")
    assert after["status"] == "succeeded"
