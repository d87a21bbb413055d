// What every page handler shares: rendering a template with the layout's data, reading form
// fields, and running a form's action so that a refusal re-renders the same form, filled in
// (passwords excepted), with words saying what to fix and nothing written.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Account } from '../../accounts/accounts.ts';
import type { PasswordWork } from '../../accounts/passwords.ts';
import type { MemberSpec } from '../../engine/params.ts';
import { DomainError } from '../../errors.ts';
import type { Limits } from '../../limits/limits.ts';
import type { Mail, Mailer } from '../../mail/mailer.ts';
import type { SessionStore } from '../../sessions/sessions.ts';
import type { Schema } from '../../store/schema.ts';
import { FormExpired, pageErrorOf } from './errors.ts';
import type { WebSessions } from './session.ts';
import type { ThrottleSettings } from './throttle.ts';
import type { Payments } from '../../payments/stripe.ts';

export interface PageDeps {
  db: Kysely<Schema>;
  now: () => number;
  log: Logger;
  limits: Limits;
  mailer: Mailer;
  sessions: WebSessions;
  /** The session store itself, to end every session of an account (reset, ban, deletion). */
  sessionStore: SessionStore;
  /** scrypt under its bound on work at once. */
  passwords: PasswordWork;
  throttle: ThrottleSettings;
  /** Refusals by a limit or a throttle are counted (vectorize_limit_refusals_total). */
  countRefusal?: (error: unknown) => void;
  publicUrl: string;
  assetVersion: string;
  /** Stripe payments; undefined when not configured. */
  payments?: Payments;
}

export type Fields = Record<string, string>;

/** Route options of the pages: they are not part of the API, so not in its OpenAPI document. */
export const hidden = { schema: { hide: true } } as const;

/** Sends a mail after the answer: the page looks and takes the same whether or not it went out. */
export function mailTo(deps: Pick<PageDeps, 'mailer' | 'log'>, mail: Mail): void {
  deps.mailer.send(mail).catch((error: unknown) => deps.log.error({ err: error }, 'mail could not be sent'));
}

/** A query parameter as a string; a repeated one (`?token=a&token=b`) or none is undefined. */
export function queryText(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * A parameter typed into a form field or a query, as the API's `params` JSON would carry it:
 * a number where it reads as one, a palette split at commas. What does not read as its kind is
 * passed on as typed, for parseParams to refuse with its own message. `raw` is trimmed, not empty.
 */
export function paramFromText(spec: MemberSpec, raw: string): unknown {
  if (spec.kind === 'integer') return /^-?\d+$/.test(raw) ? Number(raw) : raw;
  if (spec.kind === 'number') return /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  if (spec.kind === 'colours') return raw.split(/[\s,;]+/).filter(Boolean);
  return raw;
}

/**
 * What a refusal writes to the log: its status and code, never its message, which may repeat
 * what was typed into the form (an email field holding a password, say).
 */
export function refusalLog(status: number, error: unknown): { status: number; code: string } {
  return { status, code: error instanceof FormExpired ? 'form_expired' : error instanceof DomainError ? error.code : 'unknown' };
}

/** The form's fields as strings (the first value of a repeated one; '' for one not sent). */
export function formFields(body: unknown, names: readonly string[]): Fields {
  const source = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const fields: Fields = {};
  for (const name of names) {
    const value = source[name];
    const first = Array.isArray(value) ? value[0] : value;
    fields[name] = typeof first === 'string' ? first : '';
  }
  return fields;
}

export function pages(deps: PageDeps) {
  /**
   * Renders `template` in the layout, with the CSRF token of its forms (`session: false` for a
   * page without a form, which then sets no cookie for an anonymous visitor).
   */
  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    template: string,
    data: Record<string, unknown>,
    options: { status?: number; session?: boolean } = {},
  ): Promise<FastifyReply> {
    const hasForms = (options.session ?? true) || request.signedIn !== undefined;
    const html = await reply.viewAsync(template, {
      values: {},
      ...data,
      signedIn: request.signedIn,
      csrf: hasForms ? deps.sessions.csrfToken(request, reply) : '',
      assetVersion: deps.assetVersion,
    });
    return reply
      .code(options.status ?? 200)
      .type('text/html; charset=utf-8')
      .send(html);
  }

  /**
   * Runs a form's action after checking its CSRF token. A refusal the pages know how to word
   * re-renders `template` with the kept `values`, the message and its status; `onRefused`
   * runs first (to count a failed attempt). Anything else goes to the error page.
   */
  async function submit(
    request: FastifyRequest,
    reply: FastifyReply,
    form: { template: string; title: string; values: Fields; data?: Record<string, unknown>; csrfToken: unknown; invalid?: (message: string) => string | undefined },
    action: () => Promise<FastifyReply>,
    onRefused?: (error: unknown) => Promise<void>,
  ): Promise<FastifyReply> {
    try {
      deps.sessions.verifyCsrf(request, form.csrfToken);
      return await action();
    } catch (error) {
      const refusal = pageErrorOf(error);
      if (!refusal) throw error;
      if (!(error instanceof FormExpired)) await onRefused?.(error);
      deps.countRefusal?.(error);
      request.log.info(refusalLog(refusal.status, error), 'form refused');
      if (refusal.retryAfterSeconds !== undefined) void reply.header('retry-after', String(refusal.retryAfterSeconds));
      return render(
        request,
        reply,
        form.template,
        {
          title: form.title,
          ...form.data,
          values: form.values,
          error: refusal.message,
          errorLink: refusal.link,
          invalid: form.invalid?.(refusal.message),
        },
        { status: refusal.status },
      );
    }
  }

  /** Sends anyone not logged in to the log-in page, to come back here after. */
  function requireSignedIn(request: FastifyRequest, reply: FastifyReply): Account | undefined {
    if (request.signedIn) return request.signedIn;
    const path = request.url.split('?')[0] ?? '/';
    void reply.redirect(`/login?next=${encodeURIComponent(path)}`, 303);
    return undefined;
  }

  return { render, submit, requireSignedIn, deps };
}

export type Pages = ReturnType<typeof pages>;

/** Only local paths: `next` never sends anyone to another site. */
export function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/(?![/\\])[\w\-./?=&%]*$/.test(next) ? next : '/account';
}

export const formatTime = (ms: number | null) => (ms === null ? 'never' : new Date(ms).toISOString().slice(0, 16).replace('T', ' '));

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The self-check's score as the pages show it: two decimals, a dash where there is none. */
export const fidelityText = (fidelity: number | null) => (fidelity === null ? '–' : fidelity.toFixed(2));

export const planLabel = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
