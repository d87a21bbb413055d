// The web application: server-rendered pages (Eta templates, auto-escaped), sessions in the
// store, CSRF tokens tied to them, static assets, and a content security policy that lets the
// pages run their own scripts and nothing inline. Every route calls the same use cases as the
// API and the CLI.
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyError, FastifyInstance } from 'fastify';
import { fileURLToPath } from 'node:url';
import type { PasswordWork } from '../../accounts/passwords.ts';
import type { Mailer } from '../../mail/mailer.ts';
import type { SessionStore } from '../../sessions/sessions.ts';
import type { Payments } from '../../payments/stripe.ts';
import { contextSecurityHeaders } from '../security.ts';
import { buildWebAssets } from './assets.ts';
import { pageErrorOf } from './errors.ts';
import { pages, refusalLog } from './pages.ts';
import { accountRoutes } from './routes/account.ts';
import { settingsRoutes } from './routes/settings.ts';
import { adminRoutes } from './routes/admin.ts';
import { authRoutes } from './routes/auth.ts';
import { billingRoutes } from './routes/billing.ts';
import { downloadRoutes } from './routes/downloads.ts';
import { homeRoutes } from './routes/home.ts';
import { tryRoutes, type TryDeps } from './routes/try.ts';
import { webSessions } from './session.ts';
import type { ThrottleSettings } from './throttle.ts';

export interface WebDeps extends TryDeps {
  sessionStore: SessionStore;
  /** Keys signing the session cookie, newest first. */
  sessionSecrets: string[];
  mailer: Mailer;
  /** Base of the links in mails; https makes the session cookie `Secure`. */
  publicUrl: string;
  /** scrypt under its bound on work at once (PASSWORD_HASH_CONCURRENCY). */
  passwords: PasswordWork;
  /** The sign-up and mail throttles' numbers. */
  throttle: ThrottleSettings;
  /** Stripe payments; undefined when not configured. */
  payments?: Payments;
}

// Scripts and styles from this origin only; `blob:` and `data:` images for the converter's
// previews (a blob URL of the file picked, the SVG returned); forms post here only.
export const WEB_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; " +
  "font-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const VIEWS_DIR = fileURLToPath(new URL('./views/', import.meta.url));

export async function webApp(app: FastifyInstance, deps: WebDeps): Promise<void> {
  // With payments, the buy and portal forms answer with a redirect to Stripe, which form-action must allow.
  const csp = deps.payments ? WEB_CSP.replace("form-action 'self'", `form-action 'self' ${deps.payments.formTargets.join(' ')}`) : WEB_CSP;
  contextSecurityHeaders(app, csp, { noStore: true });
  await app.register(cookie, { secret: deps.sessionSecrets });
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  // autoEscape is Eta's default; said here so that no one turns it off unawares.
  await app.register(view, { engine: { eta: new Eta({ views: VIEWS_DIR, autoEscape: true, cache: true }) }, templates: VIEWS_DIR, defaultContext: {} });
  const assets = await buildWebAssets();
  await app.register(fastifyStatic, {
    root: assets.roots,
    prefix: '/static/',
    // Asset URLs carry ?v=<hash of the assets>, so a year of caching is safe.
    maxAge: '365d',
    immutable: true,
    index: false,
    list: false,
  });

  const sessions = webSessions(app, {
    sessions: deps.sessionStore,
    db: deps.store.db,
    now: deps.now,
    secureCookie: deps.publicUrl.startsWith('https://'),
  });
  const web = pages({
    db: deps.store.db,
    now: deps.now,
    log: deps.log,
    limits: deps.limits,
    mailer: deps.mailer,
    sessions,
    sessionStore: deps.sessionStore,
    passwords: deps.passwords,
    throttle: deps.throttle,
    ...(deps.countRefusal ? { countRefusal: deps.countRefusal } : {}),
    publicUrl: deps.publicUrl,
    assetVersion: assets.version,
    payments: deps.payments,
  });

  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const known = pageErrorOf(error);
    const status = known?.status ?? (error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500);
    if (status >= 500 && !known) request.log.error({ err: error, status }, 'page failed');
    else request.log.info(refusalLog(status, error), 'page refused');
    const text =
      known?.message ??
      (status >= 500
        ? `Something went wrong on our side. It was logged with the reference ${request.id}; try again in a moment.`
        : 'The request could not be read. Go back and try again.');
    if (known?.retryAfterSeconds !== undefined) void reply.header('retry-after', String(known.retryAfterSeconds));
    return web.render(
      request,
      reply,
      'message',
      { title: 'Error', heading: status >= 500 ? 'Something went wrong' : 'That did not work', text, errorLink: known?.link },
      { status, session: false },
    );
  });

  homeRoutes(app, web);
  authRoutes(app, web);
  accountRoutes(app, web);
  settingsRoutes(app, web);
  billingRoutes(app, web, deps.payments);
  tryRoutes(app, web, deps);
  downloadRoutes(app, web, deps);
  adminRoutes(app, web);
}
