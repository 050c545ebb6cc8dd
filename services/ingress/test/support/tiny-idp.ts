import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/** One signing key of the tiny IdP. */
export interface IdpKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

/**
 * A loopback issuer for the cases a real authorization server would never
 * produce (expired, wrong audience, a foreign key, alg none): its metadata
 * (RFC 8414) and JWKS are served over HTTP like any IdP's, the JWKS from
 * `published` (so a rotation is a change of that list), and it counts JWKS reads.
 */
export interface TinyIdp {
  issuer: string;
  published: IdpKey[];
  jwksReads: number;
  newKey(kid: string, alg?: 'ES256' | 'RS256' | 'EdDSA'): Promise<IdpKey>;
  /** A JWT signed with `key` (default: the first published), iss this issuer unless claims say otherwise, exp in 5 min. */
  sign(claims: JWTPayload, key?: IdpKey): Promise<string>;
  close(): Promise<void>;
}

export async function startTinyIdp(): Promise<TinyIdp> {
  const server: Server = createServer((req, res) => {
    const send = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/.well-known/oauth-authorization-server') return send({ issuer: idp.issuer, jwks_uri: `${idp.issuer}/jwks` });
    if (req.url === '/jwks') {
      idp.jwksReads += 1;
      return send({ keys: idp.published.map((k) => k.jwk) });
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const idp: TinyIdp = {
    issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    published: [],
    jwksReads: 0,
    async newKey(kid, alg = 'ES256') {
      const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
      return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
    },
    async sign(claims, key = idp.published[0]) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: idp.issuer, iat: now, exp: now + 300, ...claims })
        .setProtectedHeader({ alg: key!.alg, kid: key!.kid, typ: 'at+jwt' })
        .sign(key!.privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  idp.published.push(await idp.newKey('key-1'));
  return idp;
}
