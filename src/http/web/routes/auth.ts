// Sign-up (and the link that verifies it), log-in, log-out and password reset: thin handlers
// over src/accounts/, each behind its throttle (./throttle.ts), reserved before the work.
import type { FastifyInstance } from 'fastify';
import { validEmail } from '../../../accounts/accounts.ts';
import { checkCredentials, createPasswordReset, isResetTokenValid, resetPassword, signUp } from '../../../accounts/credentials.ts';
import { checkNewPassword } from '../../../accounts/passwords.ts';
import { findPlan } from '../../../accounts/plans.ts';
import { followEmailLink } from '../../../accounts/verification.ts';
import { DomainError } from '../../../errors.ts';
import { hidden, mailTo, queryText, safeNext, formFields, type Pages } from '../pages.ts';
import { linkRules, loginRules, mailRules, resetRequestRules, signupRules } from '../throttle.ts';

const invalidField = (message: string) => (/^password/i.test(message) ? 'password' : /^email/i.test(message) ? 'email' : undefined);

export function authRoutes(app: FastifyInstance, pages: Pages): void {
  const { render, submit, deps } = pages;

  async function freeCredits(): Promise<number> {
    return (await findPlan(deps.db, 'free'))?.signupCredits ?? 0;
  }

  /** True when one more mail of this kind may go to `email` this hour (else it is not sent). */
  async function mayMail(kind: Parameters<typeof mailRules>[0], email: string): Promise<boolean> {
    try {
      await deps.limits.reserveAttempt('mails', mailRules(kind, email, deps.throttle));
      return true;
    } catch (error) {
      if (error instanceof DomainError && error.code === 'rate_limited') return false;
      throw error;
    }
  }

  app.get('/signup', async (request, reply) => {
    if (request.signedIn) return reply.redirect('/account', 303);
    return render(request, reply, 'signup', { title: 'Sign up', freeCredits: await freeCredits() });
  });

  app.post('/signup', async (request, reply) => {
    const fields = formFields(request.body, ['_csrf', 'email', 'password']);
    const credits = await freeCredits();
    return submit(
      request,
      reply,
      { template: 'signup', title: 'Sign up', values: { email: fields.email ?? '' }, data: { freeCredits: credits }, csrfToken: fields._csrf, invalid: invalidField },
      async () => {
        // What can be told at once is told at once, and costs no place in the throttle.
        const email = validEmail(fields.email ?? '');
        checkNewPassword(fields.password ?? '');
        await deps.limits.reserveAttempt('signups', signupRules(request.ip, deps.throttle));
        const created = await signUp(deps.db, deps.passwords, { email, password: fields.password ?? '' }, deps.now());
        // A new email and a taken one get the same page; only the mail differs (and is capped).
        if (created && (await mayMail('signup', email))) {
          const link = `${deps.publicUrl}/email/confirm?token=${created.token}`;
          mailTo(deps, {
            to: email,
            subject: 'Confirm your email for Vectorize',
            text: `Welcome to Vectorize. To confirm that ${email} is yours${credits > 0 ? ` and receive your ${credits} free credits` : ''}, open this link within 24 hours (it works once):\n${link}\n\nThen log in at ${deps.publicUrl}/login.\nIf you did not sign up, ignore this message.`,
          });
        } else if (!created && (await mayMail('signup', email))) {
          mailTo(deps, {
            to: email,
            subject: 'Someone tried to sign up with your email',
            text: `Someone tried to create a Vectorize account with ${email}, which already has one.\n\nIf it was you, log in at ${deps.publicUrl}/login or set a new password at ${deps.publicUrl}/password-reset.\nIf not, you can ignore this message.`,
          });
        }
        return render(request, reply, 'signup-sent', { title: 'Check your email', email, freeCredits: credits });
      },
    );
  });

  // The link mailed at sign-up (and to a new address): proves the email, grants the free credits.
  app.get<{ Querystring: { token?: unknown } }>('/email/confirm', hidden, async (request, reply) => {
    const token = queryText(request.query.token) ?? '';
    const proof = token === '' ? undefined : await followEmailLink(deps.db, token, deps.now());
    if (!proof) {
      return render(
        request,
        reply,
        'message',
        {
          title: 'Link expired',
          heading: 'This link has expired or was already used',
          text: 'Links work once, within 24 hours. Log in to have a new one sent, or check that your email is already confirmed on your dashboard.',
          backHref: request.signedIn ? '/account' : '/login',
          backText: request.signedIn ? 'Go to your dashboard' : 'Log in',
        },
        { status: 400 },
      );
    }
    if (proof.previousEmail) {
      mailTo(deps, {
        to: proof.previousEmail,
        subject: 'Your Vectorize email was changed',
        text: `The Vectorize account that used ${proof.previousEmail} now uses ${proof.account.email}; mail about it goes there from now on.\n\nIf you did not ask for this, contact the service's operator.`,
      });
    }
    const credited = proof.credited > 0 ? ` ${proof.credited} free credits were added to your account.` : '';
    const before = proof.grantedBefore ? ' This address was given its free credits once before, so none were added now.' : '';
    const heading = proof.purpose === 'change' ? 'Your email is changed' : 'Your email is confirmed';
    return render(request, reply, 'message', {
      title: heading,
      heading,
      text: `${proof.account.email} is the confirmed email of your account.${credited}${before}`,
      backHref: request.signedIn ? '/account' : '/login',
      backText: request.signedIn ? 'Go to your dashboard' : 'Log in',
    });
  });

  app.get<{ Querystring: { next?: unknown; reset?: unknown } }>('/login', async (request, reply) => {
    const next = queryText(request.query.next) ?? '';
    if (request.signedIn) return reply.redirect(safeNext(next), 303);
    const notice = request.query.reset === '1' ? 'Your password was changed. Log in with the new one.' : undefined;
    return render(request, reply, 'login', { title: 'Log in', values: { next }, notice });
  });

  app.post('/login', async (request, reply) => {
    const fields = formFields(request.body, ['_csrf', 'email', 'password', 'next']);
    return submit(
      request,
      reply,
      { template: 'login', title: 'Log in', values: { email: fields.email ?? '', next: fields.next ?? '' }, csrfToken: fields._csrf },
      async () => {
        const email = (fields.email ?? '').trim();
        if (!email || !fields.password) throw new DomainError('invalid_input', 'enter your email and your password');
        // Counted as a failure before the password is checked; given back if it was right.
        const attempt = await deps.limits.reserveAttempt('attempts', loginRules(email, request.ip, deps.sessions.knownDevice(request, email)));
        // Unknown email, no password yet, or a wrong one: one path, one answer.
        const account = await checkCredentials(deps.db, deps.passwords, email, fields.password).catch(async (error: unknown) => {
          await attempt.cancel(); // not checked (the service was busy): not a failure
          throw error;
        });
        if (!account) throw new DomainError('invalid_input', 'email or password is incorrect');
        await attempt.cancel();
        if (account.status === 'banned') throw new DomainError('account_inactive', 'account banned: this account cannot log in', { accountStatus: 'banned' });
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
    return submit(
      request,
      reply,
      { template: 'reset-request', title: 'Reset your password', values: { email: fields.email ?? '' }, csrfToken: fields._csrf },
      async () => {
        const email = validEmail(fields.email ?? '');
        // Requests are counted apart from failed log-ins: asking for links locks no one out.
        await deps.limits.reserveAttempt('resets', resetRequestRules(request.ip));
        // The cap on links mailed to one address counts every request, for known and unknown
        // emails alike, so its refusal tells nothing either.
        await deps.limits.reserveAttempt('mails', mailRules('reset', email, deps.throttle));
        const reset = await createPasswordReset(deps.db, email, deps.now());
        if (reset) {
          const link = `${deps.publicUrl}/password-reset/confirm?token=${reset.token}`;
          mailTo(deps, {
            to: reset.account.email,
            subject: 'Set a new Vectorize password',
            text: `Someone asked to set a new password for the Vectorize account ${reset.account.email}.\n\nTo do so, open this link within an hour (it works once):\n${link}\n\nIf it was not you, ignore this message: your password stays as it is.`,
          });
        }
        return render(request, reply, 'reset-sent', { title: 'Check your email', email });
      },
    );
  });

  async function tokenValid(token: string): Promise<boolean> {
    return token !== '' && (await isResetTokenValid(deps.db, token, deps.now()));
  }

  app.get<{ Querystring: { token?: unknown } }>('/password-reset/confirm', async (request, reply) => {
    // Anything but one string (a repeated parameter) is no token.
    const token = queryText(request.query.token) ?? '';
    const valid = await tokenValid(token);
    return render(request, reply, 'reset-confirm', { title: 'Set a new password', token, tokenValid: valid }, { status: valid ? 200 : 400 });
  });

  app.post('/password-reset/confirm', async (request, reply) => {
    const fields = formFields(request.body, ['_csrf', 'token', 'password']);
    const token = fields.token ?? '';
    return submit(
      request,
      reply,
      { template: 'reset-confirm', title: 'Set a new password', values: {}, data: { token, tokenValid: await tokenValid(token) }, csrfToken: fields._csrf },
      async () => {
        checkNewPassword(fields.password ?? '');
        const attempt = await deps.limits.reserveAttempt('attempts', linkRules(request.ip));
        let accountId: string;
        try {
          accountId = await resetPassword(deps.db, deps.passwords, token, fields.password ?? '', deps.now());
        } catch (error) {
          if (error instanceof DomainError && error.code === 'not_found') {
            throw new DomainError('invalid_input', 'this reset link has expired or was already used; ask for a new one');
          }
          throw error;
        }
        await attempt.cancel();
        // Whoever knew the old password is logged out everywhere.
        await deps.sessionStore.destroyAccount(accountId);
        await deps.sessions.end(request, reply);
        return reply.redirect('/login?reset=1', 303);
      },
    );
  });
}
