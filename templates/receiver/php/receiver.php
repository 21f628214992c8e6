<?php
// A webhook receiver for Bula and the FJD payment service it simulates.
// PHP 8.1 or later, no Composer: php -S localhost:4242 receiver.php (see README.md).

$secret = getenv('BULA_WEBHOOK_SECRET') ?: '';
if ($secret === '') {
    http_response_code(500);
    error_log("Set BULA_WEBHOOK_SECRET to your endpoint's whsec_ signing secret (`npx bula listen --print-secret` prints one).");
    exit;
}
const WEBHOOK_PATH = '/webhooks';
// A delivery older than this is refused: a captured one cannot be replayed later (spec, Delivery 2).
const TOLERANCE_SECONDS = 5 * 60;
// Event ids already taken in, one per line: retries re-send the same event_id, also after a restart.
$seenFile = getenv('BULA_SEEN_FILE') ?: __DIR__ . '/processed-events.txt';

function answer(int $status, array $body): void
{
    http_response_code($status);
    header('Content-Type: application/json');
    echo json_encode($body);
}

/**
 * Why a delivery is refused, or null when it is genuine. Service-Signature is
 * `v1=<hex>`, or two of them during the 72 hours after a secret rotation;
 * each is HMAC-SHA256 of `<Service-Timestamp>.<raw body>`. Any one made with
 * our secret will do.
 */
function refusal(string $rawBody, string $secret): ?string
{
    $timestamp = $_SERVER['HTTP_SERVICE_TIMESTAMP'] ?? '';
    $signatures = [];
    foreach (explode(',', $_SERVER['HTTP_SERVICE_SIGNATURE'] ?? '') as $part) {
        $part = trim($part);
        if (str_starts_with($part, 'v1=')) {
            $signatures[] = substr($part, 3);
        }
    }
    if (!ctype_digit($timestamp) || $signatures === []) {
        return 'missing or malformed Service-Signature or Service-Timestamp';
    }
    if (abs(time() - (int) $timestamp) > TOLERANCE_SECONDS) {
        return 'Service-Timestamp is more than 5 minutes away';
    }
    $expected = hash_hmac('sha256', $timestamp . '.' . $rawBody, $secret);
    foreach ($signatures as $signature) {
        // hash_equals: a comparison that stops at the first wrong character would tell an attacker how much was right.
        if (hash_equals($expected, $signature)) {
            return null;
        }
    }
    return 'no signature matches';
}

/** Payloads are additive: read the fields you need, and ignore event types you do not handle. */
function handle(array $event): void
{
    $object = $event['data']['object'];
    switch ($event['type']) {
        case 'checkout_session.succeeded':
            $order = $object['metadata']['order_id'] ?? '-';
            error_log(sprintf('%s: paid %s (FJ$%.2f), order %s: fulfil it', $event['mode'], $object['id'], $object['amount'] / 100, $order));
            break;
        case 'checkout_session.failed':
        case 'checkout_session.cancelled':
            error_log("{$event['mode']}: {$object['id']} {$object['status']}: release the order");
            break;
        default:
            error_log("{$event['mode']}: {$event['type']} {$event['event_id']}: not handled here");
    }
}

// /webhooks under php -S; the script's own address behind Apache or nginx. php -S, which runs this script for
// every path, names each path its SCRIPT_NAME: only one that ends in this file's name is the script's own.
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
$ownPath = basename($_SERVER['SCRIPT_NAME'] ?? '') === basename(__FILE__) ? $_SERVER['SCRIPT_NAME'] : WEBHOOK_PATH;
if ($_SERVER['REQUEST_METHOD'] !== 'POST' || !in_array($path, [WEBHOOK_PATH, $ownPath], true)) {
    answer(404, ['error' => 'not found']);
    exit;
}
// The raw bytes, before any JSON parsing: the signature covers exactly what was sent.
$rawBody = file_get_contents('php://input');
$why = refusal($rawBody, $secret);
// 4xx: the delivery is not genuine, or too old; a 5xx would say this receiver failed, and it would be retried.
if ($why !== null) {
    error_log("refused a delivery: $why");
    answer(400, ['error' => $why]);
    exit;
}
$event = json_decode($rawBody, true);
if (!is_array($event) || !is_string($event['event_id'] ?? null)) {
    answer(400, ['error' => 'the body is not a JSON event with an event_id']);
    exit;
}
// The id from the signed body, not the X-Service-Event-Id header, which the signature does not cover.
// The lock makes the check and the record one step, as php -S and PHP-FPM may run requests side by side.
$lock = fopen($seenFile, 'c+');
flock($lock, LOCK_EX);
$seen = array_filter(explode("\n", stream_get_contents($lock)));
if (in_array($event['event_id'], $seen, true)) {
    flock($lock, LOCK_UN);
    answer(200, ['received' => true, 'duplicate' => true]);
    exit;
}
// Work, then record the id, then answer: if the work fails or this receiver dies on the way, no 2xx went out and
// the sender delivers the event again. Recording first lost it: every retry was answered "duplicate". Work that
// takes more than a moment belongs on a queue: store the event, answer, then work from the queue
// (docs/webhooks-receiver.md, rule 5), since a slow answer looks like a failure to the sender.
try {
    handle($event);
} catch (Throwable $error) {
    flock($lock, LOCK_UN);
    error_log("could not handle {$event['event_id']}: {$error->getMessage()}");
    answer(500, ['error' => 'could not handle the event: deliver it again']);
    exit;
}
fseek($lock, 0, SEEK_END);
fwrite($lock, $event['event_id'] . "\n");
fflush($lock);
flock($lock, LOCK_UN);
answer(200, ['received' => true]);
