#!/usr/bin/env bash
# Regenerates the test PKI of tests/blackbox/proxy.rs: a test CA and a
# certificate for engine.rypsok.test signed by it (ECDSA P-256, valid for
# a century so the tests never expire). Run from this folder; commit the
# three .pem files. Nothing here is a secret: the key serves loopback tests.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
openssl ecparam -name prime256v1 -genkey -noout -out "$tmp/ca.key"
openssl req -x509 -new -key "$tmp/ca.key" -sha256 -days 36500 \
    -subj "/CN=rypsok test CA" \
    -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out test-ca.pem
openssl ecparam -name prime256v1 -genkey -noout -out "$tmp/engine.key"
openssl pkcs8 -topk8 -nocrypt -in "$tmp/engine.key" -out engine-key.pem
openssl req -new -key engine-key.pem -subj "/CN=engine.rypsok.test" -out "$tmp/engine.csr"
cat >"$tmp/ext" <<'EXT'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:engine.rypsok.test
EXT
openssl x509 -req -in "$tmp/engine.csr" -CA test-ca.pem -CAkey "$tmp/ca.key" \
    -CAcreateserial -CAserial "$tmp/ca.srl" -sha256 -days 36500 \
    -extfile "$tmp/ext" -out engine-cert.pem
