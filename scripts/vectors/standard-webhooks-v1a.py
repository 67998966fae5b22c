# Provenance of the Standard Webhooks v1a (ed25519) vectors in tests/fixtures/signature-vectors.json:
# no official Standard Webhooks library signs ed25519 yet, so they were computed once with Python's
# `cryptography` (OpenSSL's ed25519), from RFC 8032's first test key, never with Sandbay's own code.
# Run: python3 scripts/vectors/standard-webhooks-v1a.py
import base64, json
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

# RFC 8032 section 7.1, TEST 1 (its public key is d75a9801…511a) and TEST 2.
seeds = ["9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
         "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"]
body = '{"type":"order.placed","timestamp":"2026-11-20T10:00:00.000Z","data":{"orderId":"ord_0001","total":1499.9,"currency":"TRY","customerId":"cus_0001"}}'
utf8 = '{"type":"order.placed","timestamp":"2026-11-20T10:00:00.000Z","data":{"city":"İstanbul","district":"Kadıköy","note":"çğıöşü ✓"}}'

def keys(seed_hex):
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed_hex))
    public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return key, "whsk_" + base64.b64encode(bytes.fromhex(seed_hex)).decode(), "whpk_" + base64.b64encode(public).decode()

def sign(key, msg_id, t, payload):
    return "v1a," + base64.b64encode(key.sign(f"{msg_id}.{t}.{payload}".encode("utf-8"))).decode()

cases = []
for seed, (msg_id, t, payload) in zip(seeds, [("dlv_0001", 1763805600, body), ("dlv_0002", 1763805601, utf8)]):
    key, signing_key, public_key = keys(seed)
    cases.append({"signingKey": signing_key, "publicKey": public_key, "id": msg_id, "timestamp": t, "body": payload,
                  "signedContent": f"{msg_id}.{t}.{payload}", "signature": sign(key, msg_id, t, payload)})
new, old = keys(seeds[1]), keys(seeds[0])
rotation = {"publicKeys": [new[2], old[2]], "id": "dlv_0003", "timestamp": 1763805602, "body": body,
            "header": " ".join(sign(k[0], "dlv_0003", 1763805602, body) for k in (new, old))}
print(json.dumps({"cases": cases, "rotation": rotation}, ensure_ascii=False, indent=2))
