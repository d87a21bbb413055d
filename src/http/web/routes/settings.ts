// Account settings: change the password (other sessions end), change the email (proven by a
// link to the new address), delete the account, and send the sign-up link again. Each change
// asks for the current password, under the log-in throttle.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Account } from '../../../accounts/accounts.ts';
import { changePassword, checkCurrentPassword, deleteAccount, requestEmailChange } from '../../../accounts/settings.ts';
import { checkNewPassword } from '../../../accounts/passwords.ts';
import { renewVerificationLink } from '../../../accounts/verification.ts';
import { DomainError } from '../../../errors.ts';
import { SESSION_COOKIE } from '../session.ts';
import { formFields, hidden, mailTo, type Pages } from '../pages.ts';
import { loginRules, mailRules } from '../throttle.ts';

export function settingsRoutes(app: FastifyInstance, pages: Pages): void {
  const { render, submit, requireSignedIn, deps } = pages;
  const page = (account: Account) => ({ title: 'Account settings', account });

  /** The current password, checked under the log-in throttle (from this browser: a known device). */
  async function confirmPassword(request: FastifyRequest, account: Account, password: string): Promise<void> {
    const attempt = await deps.limits.reserveAttempt('attempts', loginRules(account.email, request.ip, true));
    await checkCurrentPassword(deps.db, deps.passwords, account.id, password);
    await attempt.cancel();
  }

  app.get('/account/settings', hidden, async (request, reply) => {
    const account = requireSignedIn(request, reply);
    if (!account) return reply;
    return render(request, reply, 'settings', page(account));
  });

  app.post('/account/password', hidden, async (request, reply) => {
    const account = requireSignedIn(request, reply);
    if (!account) return reply;
    const fields = formFields(request.body, ['_csrf', 'current', 'password']);
    return submit(request, reply, { template: 'settings', title: 'Account settings', values: {}, data: { account, failed: 'password' }, csrfToken: fields._csrf }, async () => {
      checkNewPassword(fields.password ?? '');
      await confirmPassword(request, account, fields.current ?? '');
      await changePassword(deps.db, deps.passwords, account.id, fields.password ?? '', deps.now());
      // Whoever knew the old password is logged out everywhere but here.
      await deps.sessionStore.destroyAccount(account.id, request.webSession?.id);
      return render(request, reply, 'settings', { ...page(account), notice: 'Your password is changed. Your other sessions have ended.' });
    });
  });

  app.post('/account/email', hidden, async (request, reply) => {
    const account = requireSignedIn(request, reply);
    if (!account) return reply;
    const fields = formFields(request.body, ['_csrf', 'email', 'current']);
    const values = { email: fields.email ?? '' };
    return submit(request, reply, { template: 'settings', title: 'Account settings', values, data: { account, failed: 'email' }, csrfToken: fields._csrf }, async () => {
      await confirmPassword(request, account, fields.current ?? '');
      const change = await requestEmailChange(deps.db, account.id, fields.email ?? '', deps.now());
      await deps.limits.reserveAttempt('mails', mailRules('email-change', change.email, deps.throttle));
      // A taken address gets a notice instead of a link; the page says the same either way.
      mailTo(
        deps,
        change.kind === 'link'
          ? {
              to: change.email,
              subject: 'Confirm your new email for Vectorize',
              text: `To make ${change.email} the email of your Vectorize account (now ${account.email}), open this link within 24 hours (it works once):\n${deps.publicUrl}/email/confirm?token=${change.token}\n\nIf you did not ask for this, ignore this message.`,
            }
          : {
              to: change.email,
              subject: 'Someone tried to use your email on Vectorize',
              text: `Someone asked to move another Vectorize account to ${change.email}, which already has an account. Nothing was changed.\nIf it was you, log in with ${change.email} instead.`,
            },
      );
      return render(request, reply, 'settings', {
        ...page(account),
        notice: `We sent a link to ${change.email}. Open it within 24 hours to make it your email; until then, ${account.email} stays.`,
      });
    });
  });

  app.post('/account/verify-email', hidden, async (request, reply) => {
    const account = requireSignedIn(request, reply);
    if (!account) return reply;
    const fields = formFields(request.body, ['_csrf']);
    return submit(request, reply, { template: 'settings', title: 'Account settings', values: {}, data: { account }, csrfToken: fields._csrf }, async () => {
      if (account.emailVerified) return render(request, reply, 'settings', { ...page(account), notice: 'Your email is already confirmed.' });
      await deps.limits.reserveAttempt('mails', mailRules('signup', account.email, deps.throttle));
      const link = await renewVerificationLink(deps.db, account.id, deps.now());
      if (link) {
        mailTo(deps, {
          to: link.email,
          subject: 'Confirm your email for Vectorize',
          text: `To confirm that ${link.email} is yours, open this link within 24 hours (it works once):\n${deps.publicUrl}/email/confirm?token=${link.token}\n\nIf you did not ask for it, ignore this message.`,
        });
      }
      return render(request, reply, 'settings', { ...page(account), notice: `We sent a new link to ${account.email}; earlier ones no longer work.` });
    });
  });

  app.post('/account/delete', hidden, async (request, reply) => {
    const account = requireSignedIn(request, reply);
    if (!account) return reply;
    const fields = formFields(request.body, ['_csrf', 'current', 'confirm']);
    return submit(request, reply, { template: 'settings', title: 'Account settings', values: {}, data: { account, failed: 'delete' }, csrfToken: fields._csrf }, async () => {
      if (fields.confirm !== 'yes') {
        throw new DomainError('invalid_input', 'confirm: tick the box to say that you want the account and its keys deleted');
      }
      await confirmPassword(request, account, fields.current ?? '');
      await deleteAccount(deps.db, account.id, deps.now());
      await deps.sessionStore.destroyAccount(account.id);
      void reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return reply.redirect('/account/deleted', 303);
    });
  });

  app.get('/account/deleted', hidden, async (request, reply) =>
    render(
      request,
      reply,
      'message',
      {
        title: 'Account deleted',
        heading: 'Your account is deleted',
        text: 'Its API keys, sessions and conversion records are gone. The credit ledger keeps its entries without your email.',
      },
      { session: false },
    ),
  );
}
