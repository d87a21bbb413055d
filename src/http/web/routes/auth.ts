// Sign-up, log-in, log-out and password reset: thin handlers over src/accounts/credentials.ts,
// with the attempt throttle (per email and per client address) in front of each.
import type { FastifyInstance } from 'fastify';
import { validEmail } from '../../../accounts/accounts.ts';
import { checkCredentials, createPasswordReset, isResetTokenValid, resetPassword, signUp } from '../../../accounts/credentials.ts';
import { findPlan } from '../../../accounts/plans.ts';
import { DomainError } from '../../../errors.ts';
import type { SessionStore } from '../../../sessions/sessions.ts';
import { ATTEMPTS, attemptKeys, formFields, safeNext, type Pages } from '../pages.ts';

const invalidField = (message: string) => (/^password/i.test(message) ? 'password' : /^email/i.test(message) ? 'email' : undefined);

export function authRoutes(app: FastifyInstance, pages: Pages, sessionStore: SessionStore): void {
  const { render, submit, deps } = pages;

  async function freeCredits(): Promise<number> {
    return (await findPlan(deps.db, 'free'))?.signupCredits ?? 0;
  }

  /** Mail is sent after the answer: the page looks and takes the same whether or not it went out. */
  function sendLater(mail: { to: string; subject: string; text: string }): void {
    deps.mailer.send(mail).catch((error: unknown) => deps.log.error({ err: error }, 'mail could not be sent'));
  }

  app.get('/signup', async (request, reply) => {
    if (request.signedIn) return reply.redirect('/account', 303);
    return render(request, reply, 'signup', { title: 'Sign up', freeCredits: await freeCredits() });
  });

  app.post('/signup', async (request, reply) => {
    const fields = formFields(request.body, ['_csrf', 'email', 'password']);
    const keys = attemptKeys(request, fields.email ?? '');
    return submit(
      request,
      reply,
      { template: 'signup', title: 'Sign up', values: { email: fields.email ?? '' }, data: { freeCredits: await freeCredits() }, csrfToken: fields._csrf, invalid: invalidField },
      async () => {
        await deps.limits.checkAttempts(keys, ATTEMPTS);
        const account = await signUp(deps.db, { email: fields.email ?? '', password: fields.password ?? '' }, deps.now());
        const email = validEmail(fields.email ?? '');
        if (!account) {
          // Taken: the same screen as a fresh sign-up's mail notice; the owner is told by mail.
          await deps.limits.recordFailure(keys, ATTEMPTS);
          sendLater({
            to: email,
            subject: 'Someone tried to sign up with your email',
            text: `Someone tried to create a Vectorize account with ${email}, which already has one.\n\nIf it was you, log in at ${deps.publicUrl}/login or set a new password at ${deps.publicUrl}/password-reset.\nIf not, you can ignore this message.`,
          });
          return render(request, reply, 'signup-sent', { title: 'Check your email', email });
        }
        sendLater({
          to: email,
          subject: 'Welcome to Vectorize',
          text: `Your Vectorize account ${email} is ready, with ${account.credits} credits.\n\nCreate an API key at ${deps.publicUrl}/account/keys or try the converter at ${deps.publicUrl}/try.`,
        });
        await pages.deps.sessions.start(request, reply, account);
        return reply.redirect('/account?welcome=1', 303);
      },
    );
  });

  app.get<{ Querystring: { next?: string; reset?: string } }>('/login', async (request, reply) => {
    if (request.signedIn) return reply.redirect(safeNext(request.query.next), 303);
    const notice = request.query.reset === '1' ? 'Your password was changed. Log in with the new one.' : undefined;
    return render(request, reply, 'login', { title: 'Log in', values: { next: request.query.next ?? '' }, notice });
  });

  app.post('/login', async (request, reply) => {
    const fields = formFields(request.body, ['_csrf', 'email', 'password', 'next']);
    const keys = attemptKeys(request, fields.email ?? '');
    return submit(
      request,
      reply,
      { template: 'login', title: 'Log in', values: { email: fields.email ?? '', next: fields.next ?? '' }, csrfToken: fields._csrf },
      async () => {
        await deps.limits.checkAttempts(keys, ATTEMPTS);
        if (!fields.email || !fields.password) throw new DomainError('invalid_input', 'enter your email and your password');
        // Unknown email, no password yet, or a wrong one: one path, one answer.
        const account = await checkCredentials(deps.db, fields.email, fields.password);
        if (!account) {
          await deps.limits.recordFailure(keys, ATTEMPTS);
          throw new DomainError('invalid_input', 'email or password is incorrect');
        }
        await deps.sessions.start(request, reply, account);
        return reply.redirect(safeNext(fields.next), 303);
      },
    );
  });

  app.post('/logout', async (request, reply) => {
    const fields = formFields(request.body, ['_csrf']);
    return submit(
      request,
      reply,
      { template: 'message', title: 'Log out', values: {}, data: { heading: 'Log out', text: 'Press “Log out” at the top of the page to end your session.', backHref: '/account', backText: 'Back to the dashboard' }, csrfToken: fields._csrf },
      async () => {
        await deps.sessions.end(request, reply);
        return reply.redirect('/', 303);
      },
    );
  });

  app.get('/password-reset', async (request, reply) => render(request, reply, 'reset-request', { title: 'Reset your password' }));

  app.post('/password-reset', async (request, reply) => {
    const fields = formFields(request.body, ['_csrf', 'email']);
    const keys = attemptKeys(request, fields.email ?? '');
    return submit(
      request,
      reply,
      { template: 'reset-request', title: 'Reset your password', values: { email: fields.email ?? '' }, csrfToken: fields._csrf },
      async () => {
        await deps.limits.checkAttempts(keys, ATTEMPTS);
        const email = validEmail(fields.email ?? '');
        // Every request counts: each may send a mail, and the answer is the same either way.
        await deps.limits.recordFailure(keys, ATTEMPTS);
        const reset = await createPasswordReset(deps.db, email, deps.now());
        if (reset) {
          const link = `${deps.publicUrl}/password-reset/confirm?token=${reset.token}`;
          sendLater({
            to: reset.account.email,
            subject: 'Set a new Vectorize password',
            text: `Someone asked to set a new password for the Vectorize account ${reset.account.email}.\n\nTo do so, open this link within an hour (it works once):\n${link}\n\nIf it was not you, ignore this message: your password stays as it is.`,
          });
        }
        return render(request, reply, 'reset-sent', { title: 'Check your email', email });
      },
    );
  });

  app.get<{ Querystring: { token?: string } }>('/password-reset/confirm', async (request, reply) => {
    const token = request.query.token ?? '';
    const tokenValid = token !== '' && (await isResetTokenValid(deps.db, token, deps.now()));
    return render(request, reply, 'reset-confirm', { title: 'Set a new password', token, tokenValid }, { status: tokenValid ? 200 : 400 });
  });

  app.post('/password-reset/confirm', async (request, reply) => {
    const fields = formFields(request.body, ['_csrf', 'token', 'password']);
    const token = fields.token ?? '';
    return submit(
      request,
      reply,
      {
        template: 'reset-confirm',
        title: 'Set a new password',
        values: {},
        data: { token, tokenValid: token !== '' && (await isResetTokenValid(deps.db, token, deps.now())) },
        csrfToken: fields._csrf,
      },
      async () => {
        await deps.limits.checkAttempts([`ip:${request.ip}`], ATTEMPTS);
        let accountId: string;
        try {
          accountId = await resetPassword(deps.db, token, fields.password ?? '', deps.now());
        } catch (error) {
          if (error instanceof DomainError && error.code === 'not_found') {
            await deps.limits.recordFailure([`ip:${request.ip}`], ATTEMPTS);
            throw new DomainError('invalid_input', 'this reset link has expired or was already used; ask for a new one');
          }
          throw error;
        }
        // Whoever knew the old password is logged out everywhere.
        await sessionStore.destroyAccount(accountId);
        await deps.sessions.end(request, reply);
        return reply.redirect('/login?reset=1', 303);
      },
    );
  });
}
