// sign-body.mjs -- the independent Service-Signature maker for smoke tests: JCS by
// `canonicalize`, BLAKE3 by `@noble/hashes`, detached ES256 JWS by `jose` (RFC 7515 App. F).
// Usage: node sign-body.mjs KEY.pem < body.json  -> prints "<header>..<signature>".
// Run from the folder where tests/interop/run.sh installed the packages.
import { readFileSync } from 'node:fs';
import { blake3 } from '@noble/hashes/blake3.js';
import canonicalize from 'canonicalize';
import { CompactSign, importPKCS8 } from 'jose';

const key = await importPKCS8(readFileSync(process.argv[2], 'utf8'), 'ES256');
const body = readFileSync(0, 'utf8');
const hash = blake3(new TextEncoder().encode(canonicalize(JSON.parse(body))));
// The JWS payload octets are the 32 hash bytes (decisions §1), so the detached middle
// segment is b64url(hash).
const jws = await new CompactSign(hash)
  .setProtectedHeader({ alg: 'ES256' })
  .sign(key);
const [header, , signature] = jws.split('.');
process.stdout.write(`${header}..${signature}`);
