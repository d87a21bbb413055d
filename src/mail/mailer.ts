// Outgoing mail: nodemailer over SMTP_URL, or, when it is unset (one node, first steps), the
// message written to the log at info level so the link in it can still be followed.
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

export function createMailer(options: { smtpUrl: string | undefined; from: string; log: Logger }): Mailer {
  if (!options.smtpUrl) {
    return {
      async send(mail) {
        options.log.info({ mail: { to: mail.to, subject: mail.subject, text: mail.text } }, 'SMTP_URL unset: mail written to the log');
      },
      close() {},
    };
  }
  const transport = nodemailer.createTransport(options.smtpUrl);
  return {
    async send(mail) {
      await transport.sendMail({ from: options.from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    close() {
      transport.close();
    },
  };
}
