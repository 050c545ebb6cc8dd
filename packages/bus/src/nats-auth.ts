import { credsAuthenticator, nkeyAuthenticator, type ConnectionOptions } from 'nats';
import { HookyardError, SettingsError, type SecretResolver, type Settings } from '@hookyard/core';

/**
 * How Hookyard proves itself to NATS, resolved from the settings' secret
 * references: at most one of user and password, a token, an NKey seed or a
 * .creds file (settings refuse more than one), and TLS files. Every NATS
 * connection a role opens (run bus, ingest, run events, discovery) takes the
 * same credentials. Resolved once, when the process starts: a rotated secret
 * is picked up by a restart.
 */
export interface NatsCredentials {
  user?: string;
  pass?: string;
  token?: string;
  /** An NKey user seed (`SU...`). */
  nkeySeed?: Uint8Array;
  /** A .creds file's content (user JWT and seed). */
  creds?: Uint8Array;
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
  /**
   * Where this role's replies arrive (HOOKS_NATS_INBOX_PREFIX, default
   * `_INBOX_<role>`): a role's NATS user is allowed to subscribe to its own
   * prefix only, so no role reads another's replies. Unset: nats.js's `_INBOX`.
   */
  inboxPrefix?: string;
  /** The settings these came from, for a refusal's message ("HOOKS_NATS_TOKEN"). */
  source: string;
}

/** The settings NATS credentials are read from. */
export type NatsCredentialSettings = Pick<
  Settings,
  'natsUser' | 'natsPassword' | 'natsToken' | 'natsNkeySeed' | 'natsCreds' | 'natsTlsCa' | 'natsTlsCert' | 'natsTlsKey' | 'natsInboxPrefix'
>;

/** A role's inbox prefix when HOOKS_NATS_INBOX_PREFIX is unset: `_INBOX_ingress`, `_INBOX_executor`, ... */
export function roleInboxPrefix(role: string): string {
  return `_INBOX_${role}`;
}

/**
 * Resolves the secret references of the NATS settings; a reference that cannot be read is a SettingsError naming its variable.
 * `role` (ingress, executor, scheduler, all) names the default inbox prefix.
 */
export async function natsCredentials(settings: NatsCredentialSettings, secrets: SecretResolver, role?: string): Promise<NatsCredentials> {
  const read = async (variable: string, ref: string): Promise<Buffer> => {
    try {
      return await secrets.resolve(ref);
    } catch (err) {
      throw new SettingsError(variable, err instanceof Error ? err.message : String(err));
    }
  };
  const out: NatsCredentials = { source: 'no credentials (HOOKS_NATS_USER, HOOKS_NATS_TOKEN, HOOKS_NATS_NKEY_SEED or HOOKS_NATS_CREDS)' };
  if (settings.natsUser !== undefined && settings.natsPassword !== undefined) {
    out.user = settings.natsUser;
    out.pass = (await read('HOOKS_NATS_PASSWORD', settings.natsPassword)).toString('utf8');
    out.source = 'HOOKS_NATS_USER and HOOKS_NATS_PASSWORD';
  } else if (settings.natsToken !== undefined) {
    out.token = (await read('HOOKS_NATS_TOKEN', settings.natsToken)).toString('utf8');
    out.source = 'HOOKS_NATS_TOKEN';
  } else if (settings.natsNkeySeed !== undefined) {
    out.nkeySeed = new Uint8Array(await read('HOOKS_NATS_NKEY_SEED', settings.natsNkeySeed));
    out.source = 'HOOKS_NATS_NKEY_SEED';
  } else if (settings.natsCreds !== undefined) {
    out.creds = new Uint8Array(await read('HOOKS_NATS_CREDS', settings.natsCreds));
    out.source = 'HOOKS_NATS_CREDS';
  }
  const inbox = settings.natsInboxPrefix ?? (role === undefined ? undefined : roleInboxPrefix(role));
  if (inbox !== undefined) out.inboxPrefix = inbox;
  if (settings.natsTlsCa !== undefined || settings.natsTlsCert !== undefined) {
    out.tls = {
      ...(settings.natsTlsCa !== undefined ? { caFile: settings.natsTlsCa } : {}),
      ...(settings.natsTlsCert !== undefined ? { certFile: settings.natsTlsCert } : {}),
      ...(settings.natsTlsKey !== undefined ? { keyFile: settings.natsTlsKey } : {}),
    };
  }
  return out;
}

/** The nats.js connect options of `credentials` (none: an anonymous, plain connection). */
export function natsAuthOptions(credentials: NatsCredentials | undefined): Partial<ConnectionOptions> {
  if (!credentials) return {};
  const opts: Partial<ConnectionOptions> = {};
  if (credentials.user !== undefined) {
    opts.user = credentials.user;
    opts.pass = credentials.pass;
  }
  if (credentials.token !== undefined) opts.token = credentials.token;
  if (credentials.nkeySeed) opts.authenticator = nkeyAuthenticator(credentials.nkeySeed);
  if (credentials.creds) opts.authenticator = credsAuthenticator(credentials.creds);
  if (credentials.tls) opts.tls = { ...credentials.tls };
  if (credentials.inboxPrefix !== undefined) opts.inboxPrefix = credentials.inboxPrefix;
  return opts;
}

/** NATS client codes meaning the server refused who we are. */
const AUTH_CODES: ReadonlySet<string> = new Set(['AUTHORIZATION_VIOLATION', 'AUTHENTICATION_EXPIRED', 'AUTHENTICATION_TIMEOUT']);

/** Node's codes for a server certificate that does not check out. */
const TLS_CODE = /^(?:ERR_TLS_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_(?:GET|VERIFY)_)/;

/**
 * A refused login, or a server certificate that does not check out, as one
 * clear error naming the settings that were used; null for any other failure.
 */
export function authRefusal(err: unknown, where: string, credentials: NatsCredentials | undefined): HookyardError | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && TLS_CODE.test(code)) {
    const said = (err as { message?: unknown }).message;
    const message = typeof said === 'string' ? said : code;
    const ca = credentials?.tls?.caFile ? `the CA in HOOKS_NATS_TLS_CA (${credentials.tls.caFile})` : 'the system CAs (set HOOKS_NATS_TLS_CA to name another)';
    return new HookyardError('unavailable', `the NATS server at ${where} failed the TLS check against ${ca}: ${message} (${code})`);
  }
  if (typeof code !== 'string' || !AUTH_CODES.has(code)) return null;
  const used = credentials?.source ?? 'no credentials (HOOKS_NATS_USER, HOOKS_NATS_TOKEN, HOOKS_NATS_NKEY_SEED or HOOKS_NATS_CREDS)';
  return new HookyardError(
    'unauthorized',
    `the NATS server at ${where} refused the connection (${code.toLowerCase().replace(/_/g, ' ')}) with ${used}; check the credentials and the user's permissions on the server`,
    { cause: err },
  );
}
