// The pages' session: a signed cookie naming a server-side session (src/sessions/), loaded on
// every page request with the account it belongs to, and the CSRF token tied to it.
import { Tokens } from '@fastify/csrf';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { findAccount, type Account } from '../../accounts/accounts.ts';
import { SESSION_ABSOLUTE_MS, SESSION_TOUCH_INTERVAL_MS, type Session, type SessionStore } from '../../sessions/sessions.ts';
import type { Schema } from '../../store/schema.ts';
import { FormExpired } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The visitor's server-side session, if the cookie names a live one. */
    webSession: Session | undefined;
    /** The account logged in on this session. */
    signedIn: Account | undefined;
  }
}

export const SESSION_COOKIE = 'vectorize_session';

export interface SessionDeps {
  sessions: SessionStore;
  db: Kysely<Schema>;
  now: () => number;
  /** `Secure` cookies: PUBLIC_URL is https. */
  secureCookie: boolean;
}

// Tokens are salted HMACs of the session's own secret: a token from another session, or from
// before log-in or log-out (a new session, a new secret), does not verify.
const tokens = new Tokens({ userInfo: false });

export function webSessions(app: FastifyInstance, deps: SessionDeps) {
  app.decorateRequest('webSession', undefined);
  app.decorateRequest('signedIn', undefined);

  function setCookie(reply: FastifyReply, session: Session): void {
    void reply.setCookie(SESSION_COOKIE, session.id, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: deps.secureCookie,
      signed: true,
      maxAge: SESSION_ABSOLUTE_MS / 1000,
    });
  }

  app.addHook('onRequest', async (request, reply) => {
    const raw = request.cookies[SESSION_COOKIE];
    if (!raw) return;
    const unsigned = request.unsignCookie(raw);
    const now = deps.now();
    const session = unsigned.valid && unsigned.value ? await deps.sessions.find(unsigned.value, now) : undefined;
    if (!session) {
      void reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return;
    }
    if (now - session.lastSeenAt >= SESSION_TOUCH_INTERVAL_MS) await deps.sessions.touch(session, now);
    // Signed with an older key of SESSION_SECRET: sign it again with the current one.
    if (unsigned.renew) setCookie(reply, session);
    request.webSession = session;
    if (session.accountId) request.signedIn = await findAccount(deps.db, session.accountId);
  });

  return {
    /** A session for a visitor about to see a form (its CSRF token needs one). */
    async ensure(request: FastifyRequest, reply: FastifyReply): Promise<Session> {
      if (request.webSession) return request.webSession;
      const session = await deps.sessions.create(null, await tokens.secret(), deps.now());
      setCookie(reply, session);
      request.webSession = session;
      return session;
    },
    /** Log-in: the old session ends and a new one, with a new id and CSRF secret, begins. */
    async start(request: FastifyRequest, reply: FastifyReply, account: Account): Promise<void> {
      if (request.webSession) await deps.sessions.destroy(request.webSession.id);
      const session = await deps.sessions.create(account.id, await tokens.secret(), deps.now());
      setCookie(reply, session);
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
    csrfToken(session: Session): string {
      return tokens.create(session.csrfSecret);
    },
    /** Throws FormExpired unless `token` belongs to this request's session. */
    verifyCsrf(request: FastifyRequest, token: unknown): void {
      const session = request.webSession;
      if (!session || typeof token !== 'string' || token === '' || !tokens.verify(session.csrfSecret, token)) throw new FormExpired();
    },
  };
}

export type WebSessions = ReturnType<typeof webSessions>;
