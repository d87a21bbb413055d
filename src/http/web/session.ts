// The pages' session: a signed cookie naming a server-side session (src/sessions/), created at a
// successful log-in and loaded on every page request with the account it belongs to, and the
// CSRF tokens of the forms. Anonymous visitors get no stored session: their forms (log-in,
// sign-up, password reset) carry a token tied to a signed cookie of their own instead, so a
// crowd of visitors, or a script loading /login in a loop, writes nothing to any store.
import { createHash } from 'node:crypto';
import { Tokens } from '@fastify/csrf';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { findAccount, type Account } from '../../accounts/accounts.ts';
import { SESSION_ABSOLUTE_MS, SESSION_TOUCH_INTERVAL_MS, type Session, type SessionStore } from '../../sessions/sessions.ts';
import type { Schema } from '../../store/schema.ts';
import { FormExpired } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The visitor's server-side session, if the cookie names a live one of a live account. */
    webSession: Session | undefined;
    /** The account logged in on this session. */
    signedIn: Account | undefined;
  }
}

export const SESSION_COOKIE = 'vectorize_session';
/** The anonymous visitor's CSRF secret (signed): forms before log-in are checked against it. */
export const FORM_COOKIE = 'vectorize_form';
/** A browser that logged in to an account before (signed digest of its email): see loginRules. */
export const DEVICE_COOKIE = 'vectorize_device';

const FORM_COOKIE_MS = 7 * 24 * 60 * 60 * 1000;
const DEVICE_COOKIE_MS = 365 * 24 * 60 * 60 * 1000;

export interface SessionDeps {
  sessions: SessionStore;
  db: Kysely<Schema>;
  now: () => number;
  /** `Secure` cookies: PUBLIC_URL is https. */
  secureCookie: boolean;
}

// Tokens are salted HMACs of a secret: the session's own, or the anonymous visitor's cookie. A
// token from another session or another visitor, or from before log-in or log-out (a new
// session, a new secret), does not verify.
const tokens = new Tokens({ userInfo: false });

const emailDigest = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('base64url').slice(0, 22);

export function webSessions(app: FastifyInstance, deps: SessionDeps) {
  app.decorateRequest('webSession', undefined);
  app.decorateRequest('signedIn', undefined);

  const cookieOptions = (maxAgeMs: number) => ({
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: deps.secureCookie,
    signed: true,
    maxAge: maxAgeMs / 1000,
  });

  function setCookie(reply: FastifyReply, session: Session): void {
    void reply.setCookie(SESSION_COOKIE, session.id, cookieOptions(SESSION_ABSOLUTE_MS));
  }

  /** A signed cookie's value, or undefined (missing, forged, or signed with no current key). */
  function signedCookie(request: FastifyRequest, name: string): string | undefined {
    const raw = request.cookies[name];
    if (!raw) return undefined;
    const unsigned = request.unsignCookie(raw);
    return unsigned.valid && unsigned.value ? unsigned.value : undefined;
  }

  app.addHook('onRequest', async (request, reply) => {
    const raw = request.cookies[SESSION_COOKIE];
    if (!raw) return;
    const unsigned = request.unsignCookie(raw);
    const now = deps.now();
    const session = unsigned.valid && unsigned.value ? await deps.sessions.find(unsigned.value, now) : undefined;
    const account = session ? await findAccount(deps.db, session.accountId) : undefined;
    if (!session || !account || account.status === 'banned') {
      // A banned (or deleted) account's sessions end at its very next request, whatever node
      // or tool made the change.
      if (session) await deps.sessions.destroy(session.id);
      void reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return;
    }
    if (now - session.lastSeenAt >= SESSION_TOUCH_INTERVAL_MS) await deps.sessions.touch(session, now);
    // Signed with an older key of SESSION_SECRET: sign it again with the current one.
    if (unsigned.renew) setCookie(reply, session);
    request.webSession = session;
    request.signedIn = account;
  });

  /** The anonymous visitor's CSRF secret, from its cookie; a new one (and cookie) when `reply` is given. */
  function formSecret(request: FastifyRequest, reply?: FastifyReply): string | undefined {
    const existing = signedCookie(request, FORM_COOKIE);
    if (existing || !reply) return existing;
    const secret = tokens.secretSync();
    void reply.setCookie(FORM_COOKIE, secret, cookieOptions(FORM_COOKIE_MS));
    // Later reads in this request (a second render) see it too.
    request.cookies[FORM_COOKIE] = reply.signCookie(secret);
    return secret;
  }

  return {
    /** Log-in: the old session ends and a new one, with a new id and CSRF secret, begins. */
    async start(request: FastifyRequest, reply: FastifyReply, account: Account): Promise<void> {
      if (request.webSession) await deps.sessions.destroy(request.webSession.id);
      const session = await deps.sessions.create(account.id, await tokens.secret(), deps.now());
      setCookie(reply, session);
      void reply.setCookie(DEVICE_COOKIE, emailDigest(account.email), cookieOptions(DEVICE_COOKIE_MS));
      request.webSession = session;
      request.signedIn = account;
    },
    /** Log-out: the session ends on the server, whatever happens to the cookie. */
    async end(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      if (request.webSession) await deps.sessions.destroy(request.webSession.id);
      void reply.clearCookie(SESSION_COOKIE, { path: '/' });
      request.webSession = undefined;
      request.signedIn = undefined;
    },
    /** The token for this request's forms: of the session, or of the visitor's form cookie (set if missing). */
    csrfToken(request: FastifyRequest, reply: FastifyReply): string {
      const secret = request.webSession?.csrfSecret ?? formSecret(request, reply);
      return secret ? tokens.create(secret) : '';
    },
    /** Throws FormExpired unless `token` belongs to this request's session, or to its visitor before log-in. */
    verifyCsrf(request: FastifyRequest, token: unknown): void {
      const secret = request.webSession?.csrfSecret ?? formSecret(request);
      if (!secret || typeof token !== 'string' || token === '' || !tokens.verify(secret, token)) throw new FormExpired();
    },
    /** True when this browser logged in to the account with `email` before (its device cookie). */
    knownDevice(request: FastifyRequest, email: string): boolean {
      return signedCookie(request, DEVICE_COOKIE) === emailDigest(email);
    },
  };
}

export type WebSessions = ReturnType<typeof webSessions>;
