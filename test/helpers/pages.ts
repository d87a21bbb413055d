// The pages over plain HTTP, as a browser without JavaScript would use them: a cookie jar,
// the CSRF token read from the form, urlencoded posts.
import assert from 'node:assert/strict';

/** Where a test reads the links the service mails: its log (SMTP_URL unset) or a test SMTP server. */
export interface Mailbox {
  /** A position in the mail received so far, to wait for mail after it. */
  mark(): number;
  /** The first link to `path` (with its query) in a mail to `email` received after `since`. */
  linkTo(email: string, path: string, since?: number): Promise<string>;
}

/** A page client seen by the service (behind TRUST_PROXY) as coming from `address`. */
export function fromAddress(client: PageClient, address: string): PageClient {
  client.headers['x-forwarded-for'] = address;
  return client;
}

export class PageClient {
  readonly cookies = new Map<string, string>();
  /** Sent with every request (an `x-forwarded-for` to play another client address behind TRUST_PROXY). */
  headers: Record<string, string> = {};
  /** `mailbox` lets signUp() follow the confirmation link, as a person would. */
  constructor(
    readonly baseUrl: string,
    readonly mailbox?: Mailbox,
  ) {}

  private remember(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = header.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(a));
      if (value === '' || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async get(path: string): Promise<{ status: number; html: string; headers: Headers }> {
    const response = await fetch(`${this.baseUrl}${path}`, { headers: { ...this.headers, cookie: this.cookieHeader() }, redirect: 'manual' });
    this.remember(response);
    return { status: response.status, html: await response.text(), headers: response.headers };
  }

  async post(path: string, fields: Record<string, string>): Promise<{ status: number; html: string; headers: Headers; location: string | null }> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      headers: { ...this.headers, cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    });
    this.remember(response);
    return { status: response.status, html: await response.text(), headers: response.headers, location: response.headers.get('location') };
  }

  async postMultipart(path: string, form: FormData, headers: Record<string, string> = {}) {
    const response = await fetch(`${this.baseUrl}${path}`, { method: 'POST', headers: { ...this.headers, cookie: this.cookieHeader(), ...headers }, body: form, redirect: 'manual' });
    this.remember(response);
    return { status: response.status, text: await response.text(), headers: response.headers };
  }

  /** GETs a page with a form and returns its CSRF token. */
  async csrf(path: string): Promise<string> {
    const page = await this.get(path);
    assert.equal(page.status, 200, `${path}: ${page.html.slice(0, 300)}`);
    return csrfOf(page.html);
  }

  /** Submits a form after reading its page's CSRF token. */
  async submit(pagePath: string, action: string, fields: Record<string, string>) {
    return this.post(action, { _csrf: await this.csrf(pagePath), ...fields });
  }

  /**
   * Signs up as a person does: the form, the link in the mail (which confirms the email and
   * grants the free credits), then the log-in. Ends logged in.
   */
  async signUp(email: string, password: string): Promise<void> {
    assert.ok(this.mailbox, 'signUp needs a mailbox to follow the confirmation link');
    const since = this.mailbox.mark();
    const res = await this.submit('/signup', '/signup', { email, password });
    assert.equal(res.status, 200, res.html.slice(0, 500));
    assert.match(res.html, /Check your email/);
    const link = await this.mailbox.linkTo(email, '/email/confirm', since);
    const confirmed = await this.get(pathOf(link));
    assert.equal(confirmed.status, 200, confirmed.html.slice(0, 500));
    assert.match(confirmed.html, /Your email is confirmed/);
    const login = await this.logIn(email, password);
    assert.equal(login.status, 303, login.html.slice(0, 500));
  }

  async logIn(email: string, password: string) {
    return this.submit('/login', '/login', { email, password });
  }
}

export function csrfOf(html: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  assert.ok(token, 'the page has a CSRF token');
  return token;
}

/** The text of the page's error box, if any. */
export function errorOf(html: string): string | undefined {
  return /<div class="error" role="alert"[^>]*>\s*<p>([^<]*)<\/p>/.exec(html)?.[1];
}

/** The path and query of a link, for a client bound to the service's address. */
export function pathOf(link: string): string {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}
